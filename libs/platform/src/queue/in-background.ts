import type { Logger } from '../logging/logger';

/**
 * Start-up work on Redis (job schedulers) that must not hold the process's start: while Redis is
 * unreachable BullMQ keeps the commands and sends them once it is back, and the process serves
 * meanwhile (/readyz says Redis is down). A failure is logged, never thrown into the bootstrap.
 */
export function inBackground(logger: Logger, what: string, work: () => Promise<unknown>): void {
  work().catch((error: unknown) => logger.warn({ err: error }, `could not ${what}`));
}
