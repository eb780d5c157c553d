import { performance } from 'node:perf_hooks';
import { type InferenceSession, Tensor } from 'onnxruntime-node';
import { ONNX_AMOUNT_OUTPUT, ONNX_INPUT, ONNX_PROBABILITIES_OUTPUT } from '@foresight/models';
import { SameTurnBatches } from '@foresight/platform';

/** A run's answer for the rows one caller asked for. */
export interface RowsRun {
  /** Per row, the probabilities of the negative and the positive class. */
  probabilities: Float32Array;
  /** A `value` model's amount score per row (its graph's `amount` output); absent for the other kinds. */
  amounts?: Float32Array;
  /** The run's time shared among all its rows (ms). */
  msPerRow: number;
}

interface Rows {
  features: Float32Array;
  rows: number;
}

/**
 * One serving model's ONNX Runtime runs, coalesced across requests. ONNX Runtime for Node runs a
 * session on the event loop, and for a row or two most of a run is its fixed cost: rows asked for
 * in the same turn of the loop (requests whose reads came back together) go into one run and each
 * caller gets its own rows back. A request alone waits for no one; its run starts on the next turn.
 */
export class CoalescedRuns {
  private readonly batches = new SameTurnBatches<'run', Rows, RowsRun>((_, asked) => this.runTogether(asked));

  constructor(
    private readonly session: Pick<InferenceSession, 'run'>,
    private readonly width: number,
  ) {}

  /** `features` holds `rows` rows of the model's width, one after the other. */
  run(features: Float32Array, rows: number): Promise<RowsRun> {
    return this.batches.add('run', { features, rows });
  }

  private async runTogether(asked: Rows[]): Promise<RowsRun[]> {
    const rows = asked.reduce((total, { rows }) => total + rows, 0);
    let input = asked[0].features;
    if (asked.length > 1) {
      input = new Float32Array(rows * this.width);
      let offset = 0;
      for (const { features } of asked) {
        input.set(features, offset);
        offset += features.length;
      }
    }
    const started = performance.now();
    const output = await this.session.run({ [ONNX_INPUT]: new Tensor('float32', input, [rows, this.width]) });
    const msPerRow = (performance.now() - started) / rows;
    const probabilities = output[ONNX_PROBABILITIES_OUTPUT].data as Float32Array;
    const amounts = output[ONNX_AMOUNT_OUTPUT]?.data as Float32Array | undefined;
    let row = 0;
    return asked.map(({ rows }) => {
      const run: RowsRun = { probabilities: probabilities.subarray(row * 2, (row + rows) * 2), msPerRow };
      if (amounts) run.amounts = amounts.subarray(row, row + rows);
      row += rows;
      return run;
    });
  }
}
