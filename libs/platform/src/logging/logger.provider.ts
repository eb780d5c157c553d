/** Injection token for the process's pino logger. */
export const LOGGER = Symbol('LOGGER');
