import { createRandom } from '@foresight/platform';
import type { GbdtOptions } from './gbdt-options';

/** Rows whose |gradient| estimate the GOSS cutoff. */
const MAX_GOSS_QUANTILE_SAMPLE = 20_000;

/**
 * GOSS row selection. Keeps every row whose |gradient| reaches the top-rate quantile
 * and a random share q of the others, scaling the kept others' gradient and hessian by
 * 1/q in place so histogram sums stay unbiased estimates of the full sums.
 */
export class GossSampler {
  private readonly magnitudes: Float64Array;
  private readonly rows: Int32Array;
  private readonly random: () => number;
  private readonly step: number;

  constructor(
    private readonly n: number,
    private readonly opts: GbdtOptions,
  ) {
    // The cutoff is a quantile, estimated from an evenly spaced subset of rows: unbiasedness
    // only needs the 1/q weight, not an exact top share, and it saves a pass over all rows.
    this.step = Math.max(1, Math.floor(n / MAX_GOSS_QUANTILE_SAMPLE));
    this.magnitudes = new Float64Array(Math.ceil(n / this.step));
    this.rows = new Int32Array(n);
    this.random = createRandom(opts.seed);
  }

  sample(grad: Float64Array, hess: Float64Array): Int32Array {
    const { n, opts, magnitudes, rows, step } = this;
    for (let k = 0; k < magnitudes.length; k++) magnitudes[k] = Math.abs(grad[k * step]);
    const cutoff = kthLargest(magnitudes, Math.max(1, Math.floor(magnitudes.length * opts.gossTopRate)));
    const keepOther = opts.gossOtherRate / (1 - opts.gossTopRate);
    const amplify = 1 / keepOther;
    let m = 0;
    for (let i = 0; i < n; i++) {
      if (Math.abs(grad[i]) >= cutoff) {
        rows[m++] = i;
      } else if (this.random() < keepOther) {
        grad[i] *= amplify;
        hess[i] *= amplify;
        rows[m++] = i;
      }
    }
    return rows.subarray(0, m);
  }
}

/** k-th largest value (1-based) by in-place quickselect; reorders `values`. */
export function kthLargest(values: Float64Array, k: number): number {
  let lo = 0;
  let hi = values.length - 1;
  const target = k - 1;
  while (lo < hi) {
    // Median of three keeps already-ordered inputs away from the quadratic case.
    const mid = (lo + hi) >>> 1;
    const a = values[lo];
    const b = values[mid];
    const c = values[hi];
    const pivot = a > b ? (b > c ? b : a > c ? c : a) : a > c ? a : b > c ? c : b;
    let i = lo;
    let j = hi;
    while (i <= j) {
      while (values[i] > pivot) i++;
      while (values[j] < pivot) j--;
      if (i <= j) {
        const tmp = values[i];
        values[i] = values[j];
        values[j] = tmp;
        i++;
        j--;
      }
    }
    if (target <= j) hi = j;
    else if (target >= i) lo = i;
    else return values[target];
  }
  return values[target];
}

