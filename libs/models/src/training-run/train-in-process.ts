import { fork } from 'node:child_process';
import { join } from 'node:path';
import { activeTraceContext, type TraceCarrier } from '@foresight/platform';
import type { BuiltDataset, ModelDefinition } from '../dataset/dataset-builder';
import type { TrainedModel, TrainModelInput } from '../training';

/** How to fit, as trainModel takes it less the matrix, which the training process builds. */
export type FitSettings = { [A in TrainModelInput['algorithm']]: Omit<Extract<TrainModelInput, { algorithm: A }>, 'split'> }[TrainModelInput['algorithm']];

/** What a training process is asked: the model whose matrix it builds, and how to fit it. */
export interface TrainingProcessInput {
  model: ModelDefinition;
  fit: FitSettings;
  /** The trace of the worker's training job, which the process's matrix reads and fit continue (when traced). */
  traceContext?: TraceCarrier;
}

/** A training process's answer: what the run stores of its matrix and model, and what it cost. */
export interface TrainedInProcess {
  /** The dataset's description (manifest, plan, dormant rate), without its rows. */
  dataset: Omit<BuiltDataset, 'split'> & { validationRows: number };
  model: TrainedModel;
  /** Building the matrix (the events read, the features) and fitting it (search, calibration, ONNX). */
  seconds: { matrix: number; fit: number };
  /** The most memory the process held (peak RSS, MiB): the run's cost beside the worker's own. */
  peakRssMiB: number;
}

export type TrainingOutcome = TrainedInProcess | { error: string };

/**
 * A training run's matrix and fit in a child process of its own (training.process.ts), which reads the
 * organization's events over connections of its own: the worker's event loop keeps renewing job locks
 * and serving other queues while the CPU-heavy fit runs, and everything the run allocated (the rows
 * read, the matrix, the fit's trees) goes back to the system when the process exits. With the fit
 * alone in a child and the matrix built in the worker, the worker's RSS rose by 100-150 MiB during
 * each run and its memory outside V8 kept some of it, 5-14 MiB a run, over the first half hour of the
 * soaks. Only the model (its ONNX bytes and metrics) comes back over the IPC channel; errors arrive
 * with their message intact.
 */
export function trainInProcess(input: Omit<TrainingProcessInput, 'traceContext'>): Promise<TrainedInProcess> {
  return new Promise((resolve, reject) => {
    // The service's V8 flags (node-flags.json) are for request handling; a run sizes its heap as node does by default.
    // Its argument is the worker's pid: the process ends itself once it has another parent (orphaned).
    const child = fork(join(__dirname, 'training.process.js'), [String(process.pid)], { serialization: 'advanced', execArgv: [], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    let outcome: TrainingOutcome | undefined;
    let sendError: Error | null = null;
    child.once('message', (message: TrainingOutcome) => {
      outcome = message;
    });
    child.once('error', reject);
    // 'close' comes after the IPC channel closed too, so a large answer has been read by then ('exit' can come first).
    child.once('close', (code, signal) => {
      if (outcome && 'model' in outcome) resolve(outcome);
      else if (outcome) reject(new Error(outcome.error));
      else reject(sendError ?? new Error(`training process exited with ${signal ?? `code ${code}`} before it answered`));
    });
    child.send({ ...input, traceContext: activeTraceContext() } satisfies TrainingProcessInput, (error) => {
      if (!error) return;
      sendError = error;
      child.kill('SIGKILL');
    });
  });
}
