// Runs one fit in a worker thread, so the worker process's event loop keeps renewing job locks
// and serving other queues while the CPU-heavy training runs.
import { parentPort, workerData } from 'node:worker_threads';
import { trainModel, type TrainModelInput } from '../training';

const model = trainModel(workerData as TrainModelInput);
// A small ONNX document can be a slice of Node's shared Buffer pool, which cannot be transferred
// (Node 21 and later throw instead of copying): hand over a copy that owns its memory.
const onnx = new Uint8Array(model.onnx);
parentPort?.postMessage({ ...model, onnx }, [onnx.buffer]);
