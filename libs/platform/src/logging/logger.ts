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

/**
 * pino-pretty for a terminal: one line per entry, Nest's context before the message, and without the
 * fields a person reading it needs on no line (the start-up summary's are its message already).
 */
const PRETTY_OPTIONS = {
  colorize: true,
  translateTime: 'SYS:HH:MM:ss.l',
  singleLine: true,
  messageFormat: '{if context}{context}: {end}{msg}',
  ignore: 'pid,hostname,service,process,context,startup',
};

/**
 * JSON lines for machines (containers, CI, tests, log shippers: anything but a terminal), pino-pretty's
 * transport when the output is a terminal a person reads. The API and the worker log on stdout; the CLI
 * on stderr, so its stdout carries only the command's answer (`--json` output stays parseable).
 */
export function createLogger(level: string, name: string, output: { isTTY?: boolean; fd: number } = process.stdout): Logger {
  const options = {
    name,
    level,
    redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
    // Errors never bring SQL, its parameters or the values Postgres quotes into a log line.
    serializers: { err: serializeError, error: serializeError },
    base: { service: 'foresight', process: name },
    timestamp: pino.stdTimeFunctions.isoTime,
  };
  if (output.isTTY !== true) return pino(options, pino.destination({ dest: output.fd }));
  return pino(options, pino.transport({ target: 'pino-pretty', options: { ...PRETTY_OPTIONS, destination: output.fd } }));
}

export type { Logger };
