import type { INestApplicationContext } from '@nestjs/common';
import type { Runtime } from '../runtime';
import { stopTracing } from '../tracing/tracing';

const FORCED_EXIT_AFTER_MS = 30_000;

/**
 * On SIGTERM or SIGINT: close the Nest app (HTTP stops accepting, in-flight requests and jobs
 * finish, connections close), then release the runtime and flush the spans not yet exported.
 * A second signal or a stuck close exits hard.
 */
export function closeOnSignals(app: INestApplicationContext, runtime: Runtime): void {
  let closing = false;
  const close = (signal: NodeJS.Signals): void => {
    if (closing) {
      runtime.logger.warn({ signal }, 'second signal: exiting now');
      process.exit(1);
    }
    closing = true;
    runtime.logger.info({ signal }, 'shutting down');
    setTimeout(() => {
      runtime.logger.error('shutdown took too long: exiting');
      process.exit(1);
    }, FORCED_EXIT_AFTER_MS).unref();
    void app
      .close()
      .then(() => runtime.stop())
      // The last requests' and jobs' spans are still buffered.
      .then(() => stopTracing())
      .then(
        () => process.exit(0),
        (error: unknown) => {
          runtime.logger.error({ err: error }, 'shutdown failed');
          process.exit(1);
        },
      );
  };
  process.once('SIGTERM', close);
  process.once('SIGINT', close);
}
