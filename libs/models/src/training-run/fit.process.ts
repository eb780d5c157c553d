// Runs one fit in a child process of the worker (fit-in-process.ts): the matrix arrives as the first
// message, the model or the error's message goes back, and the process exits, returning its memory.
import { Worker } from 'node:worker_threads';
import { type TrainedModel, trainModel, type TrainModelInput } from '../training';

export type FitOutcome = { model: TrainedModel; peakRssMiB: number } | { error: string };

const ORPHAN_CHECK_MS = 500;

/**
 * A worker that dies (SIGKILL, the OOM killer) closes the channel, but the fit is synchronous and this
 * process's event loop would hear of it only when the fit ends, minutes later for a large organization,
 * spending a core on a run another worker starts again. A thread of its own notices being adopted (its
 * parent's pid changes) and ends the process.
 */
function stopWhenOrphaned(): void {
  const watchdog = new Worker(
    `const { workerData } = require('node:worker_threads');
     setInterval(() => { if (process.ppid !== workerData.parent) process.kill(process.pid, 'SIGKILL'); }, workerData.everyMs);`,
    { eval: true, workerData: { parent: process.ppid, everyMs: ORPHAN_CHECK_MS } },
  );
  watchdog.unref();
}

stopWhenOrphaned();
process.once('message', (input: TrainModelInput) => {
  let outcome: FitOutcome;
  try {
    const model = trainModel(input);
    outcome = { model, peakRssMiB: process.resourceUsage().maxRSS / 1024 };
  } catch (error) {
    outcome = { error: error instanceof Error ? error.message : String(error) };
  }
  process.send?.(outcome, () => process.exit(0));
});
