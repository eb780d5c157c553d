// Runs one fit in a worker thread, so the worker process's event loop keeps renewing job locks
// and serving other queues while the CPU-heavy training runs.
import { parentPort, workerData } from 'node:worker_threads';
import { trainModel, type TrainModelInput } from '../training';

const model = trainModel(workerData as TrainModelInput);
parentPort?.postMessage(model, [model.onnx.buffer as ArrayBuffer]);
