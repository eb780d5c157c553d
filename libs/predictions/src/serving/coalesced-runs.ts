import { performance } from 'node:perf_hooks';
import { type InferenceSession, Tensor } from 'onnxruntime-node';
import { ONNX_INPUT, ONNX_PROBABILITIES_OUTPUT } from '@foresight/models';

/** A run's answer for the rows one caller asked for. */
export interface RowsRun {
  /** Per row, the probabilities of the negative and the positive class. */
  probabilities: Float32Array;
  /** The run's time shared among all its rows (ms). */
  msPerRow: number;
}

interface Waiting {
  features: Float32Array;
  rows: number;
  resolve: (run: RowsRun) => void;
  reject: (error: unknown) => void;
}

/**
 * One serving model's ONNX Runtime runs, coalesced across requests. ONNX Runtime for Node runs a
 * session on the event loop, and for a row or two most of a run is its fixed cost: rows asked for
 * in the same turn of the loop (requests whose reads came back together) go into one run and each
 * caller gets its own rows back. A request alone waits for no one; its run starts on the next turn.
 */
export class CoalescedRuns {
  private waiting: Waiting[] = [];

  constructor(
    private readonly session: Pick<InferenceSession, 'run'>,
    private readonly width: number,
  ) {}

  /** `features` holds `rows` rows of the model's width, one after the other. */
  run(features: Float32Array, rows: number): Promise<RowsRun> {
    return new Promise((resolve, reject) => {
      if (this.waiting.push({ features, rows, resolve, reject }) === 1) setImmediate(() => void this.runWaiting());
    });
  }

  private async runWaiting(): Promise<void> {
    const batch = this.waiting;
    this.waiting = [];
    const rows = batch.reduce((total, waiting) => total + waiting.rows, 0);
    let input = batch[0].features;
    if (batch.length > 1) {
      input = new Float32Array(rows * this.width);
      let offset = 0;
      for (const waiting of batch) {
        input.set(waiting.features, offset);
        offset += waiting.features.length;
      }
    }
    try {
      const started = performance.now();
      const output = await this.session.run({ [ONNX_INPUT]: new Tensor('float32', input, [rows, this.width]) });
      const msPerRow = (performance.now() - started) / rows;
      const probabilities = output[ONNX_PROBABILITIES_OUTPUT].data as Float32Array;
      let row = 0;
      for (const waiting of batch) {
        waiting.resolve({ probabilities: probabilities.subarray(row * 2, (row + waiting.rows) * 2), msPerRow });
        row += waiting.rows;
      }
    } catch (error) {
      for (const waiting of batch) waiting.reject(error);
    }
  }
}
