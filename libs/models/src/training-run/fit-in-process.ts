import { fork } from 'node:child_process';
import { join } from 'node:path';
import type { TrainedModel, TrainModelInput } from '../training';
import type { FitOutcome } from './fit.process';

/** A fit's model, and the most memory its process held (peak RSS, MiB): the run's cost beside the worker's own. */
export interface FittedInProcess {
  model: TrainedModel;
  peakRssMiB: number;
}

/**
 * trainModel in a child process of its own (fit.process.ts), so the worker's event loop keeps renewing
 * job locks and serving other queues while the CPU-heavy fit runs, and everything the fit allocated
 * goes back to the system when it exits. In a thread of the worker (as before), the glibc arena the
 * fit's native allocations came from stayed fragmented after it, and the worker's memory outside the
 * V8 heap rose by 74-357 MiB an hour, a step per training run, in every soak. The matrix goes over
 * the IPC channel with V8's serializer (a copy, where a thread had it moved); its errors arrive with
 * their message intact.
 */
export function fitInProcess(input: TrainModelInput): Promise<FittedInProcess> {
  return new Promise((resolve, reject) => {
    // The service's V8 flags (node-flags.json) are for request handling; a fit sizes its heap as node does by default.
    const child = fork(join(__dirname, 'fit.process.js'), [], { serialization: 'advanced', execArgv: [], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    let outcome: FitOutcome | undefined;
    let sendError: Error | null = null;
    child.once('message', (message: FitOutcome) => {
      outcome = message;
    });
    child.once('error', reject);
    // 'close' comes after the IPC channel closed too, so a large answer has been read by then ('exit' can come first).
    child.once('close', (code, signal) => {
      if (outcome && 'model' in outcome) resolve({ model: outcome.model, peakRssMiB: outcome.peakRssMiB });
      else if (outcome) reject(new Error(outcome.error));
      else reject(sendError ?? new Error(`training process exited with ${signal ?? `code ${code}`} before it answered`));
    });
    child.send(input, (error) => {
      if (!error) return;
      sendError = error;
      child.kill('SIGKILL');
    });
  });
}
