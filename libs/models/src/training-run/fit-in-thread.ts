import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import type { TrainedModel, TrainModelInput } from '../training';

/** trainModel in a worker thread (fit.thread.ts). Its errors arrive with their message intact. */
export function fitInThread(input: TrainModelInput): Promise<TrainedModel> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(join(__dirname, 'fit.thread.js'), {
      workerData: input,
      transferList: [input.split.train, input.split.tuning, input.split.validation].flatMap((set) => (set ? [set.features.buffer as ArrayBuffer] : [])),
    });
    worker.once('message', (model: TrainedModel) => resolve(model));
    // A DataCloneError arrives from the thread without its message; its name still says what failed.
    worker.once('error', (error: Error) => reject(error.message ? error : new Error(`training thread failed (${error.name} without a message)`)));
    worker.once('exit', (code) => {
      if (code !== 0) reject(new Error(`training thread exited with code ${code}`));
    });
  });
}
