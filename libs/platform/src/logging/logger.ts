import pino, { type Logger } from 'pino';
import { serializeError } from './error-serializer';

/** Paths never written to logs, whatever object they appear in. */
export const REDACTED_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'headers.authorization',
  'authorization',
  'token',
  '*.token',
  'secret',
  '*.secret',
  'password',
  '*.password',
];

export function createLogger(level: string, name: string): Logger {
  return pino({
    name,
    level,
    redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
    // Errors never bring SQL, its parameters or the values Postgres quotes into a log line.
    serializers: { err: serializeError, error: serializeError },
    base: { service: 'foresight', process: name },
    timestamp: pino.stdTimeFunctions.isoTime,
  });
}

export type { Logger };
