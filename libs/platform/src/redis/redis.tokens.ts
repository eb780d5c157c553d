/** Client for request-path commands: fails fast when Redis is down instead of queueing. */
export const REDIS = Symbol('REDIS');
