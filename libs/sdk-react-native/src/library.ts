/** Sent in each event's context; the build checks it against package.json's version. */
export const LIBRARY = { name: '@foresight/react-native', version: '0.1.0' };
