/** Sent in each event's context; kept equal to package.json's version by the build. */
export const LIBRARY = { name: '@foresight/node', version: '0.1.0' };
