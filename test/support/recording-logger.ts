import type { Logger } from '@foresight/platform';

/** A logged warning or error: its level and the structured entry (the message is not kept). */
export interface LoggedEntry {
  level: string;
  entry: unknown;
}

/** A logger for services built by hand in tests: warnings and errors land in `logged`, the rest is dropped. */
export function recordingLogger(logged: LoggedEntry[] = []): { logger: Logger; logged: LoggedEntry[] } {
  const record = (level: string) => (entry: unknown) => void logged.push({ level, entry });
  const logger = { warn: record('warn'), error: record('error'), info: () => undefined, debug: () => undefined } as unknown as Logger;
  return { logger, logged };
}
