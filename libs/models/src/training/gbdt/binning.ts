/** Values sorted to place bin thresholds; more rows barely move the quantiles. */
const MAX_BINNING_SAMPLE = 100_000;

/**
 * Per feature, ascending split candidates taken from the data (so each is an exact
 * float32 feature value). Bin b holds values in (t[b-1], t[b]]; the last bin holds
 * everything above the last threshold.
 */
export function computeBinThresholds(
  features: Float32Array,
  n: number,
  d: number,
  maxBins: number,
): Float32Array[] {
  const step = Math.max(1, Math.ceil(n / MAX_BINNING_SAMPLE));
  const m = Math.ceil(n / step);
  const sample = new Float32Array(m);
  const result: Float32Array[] = [];
  for (let f = 0; f < d; f++) {
    for (let k = 0; k < m; k++) sample[k] = features[k * step * d + f];
    sample.sort();
    const distinct: number[] = [];
    const counts: number[] = [];
    for (let k = 0; k < m; k++) {
      if (k > 0 && sample[k] === sample[k - 1]) counts[counts.length - 1]++;
      else {
        distinct.push(sample[k]);
        counts.push(1);
      }
    }
    const thresholds: number[] = [];
    if (distinct.length <= maxBins) {
      thresholds.push(...distinct.slice(0, -1));
    } else {
      // Close a bin once it holds its share of the rows not yet binned over the bins left: a value
      // heavier than one share (e.g. a mass of zeros) gets a bin of its own, and the rest are cut
      // into equal shares of what remains (not of all rows, which would leave the tail one bin).
      let rowsLeft = m;
      let inBin = 0;
      for (let j = 0; j < distinct.length - 1 && thresholds.length < maxBins - 1; j++) {
        inBin += counts[j];
        if (inBin * (maxBins - thresholds.length) >= rowsLeft) {
          thresholds.push(distinct[j]);
          rowsLeft -= inBin;
          inBin = 0;
        }
      }
    }
    result.push(Float32Array.from(thresholds));
  }
  return result;
}

/** Smallest bin whose threshold is >= x; the comparison is the same one the trees use. */
export function binOf(thresholds: Float32Array, x: number): number {
  let lo = 0;
  let hi = thresholds.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (x <= thresholds[mid]) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

/** Features the histogram loop walks together: each row's gradient is read once for all of them. */
export const FEATURES_PER_PASS = 4;

/**
 * Each feature's bins as one column of bytes (a feature has at most 255 bins): feature f's bin of
 * row i at `bins[f * rows + i]`, then columns of 0s up to a multiple of FEATURES_PER_PASS (their
 * adds go to one junk bin). The histogram loop is the whole cost of training: walking a few features
 * at a time keeps their histograms (256 bins of gradient, hessian and count each) in L1, where a row
 * at a time scattered every row's adds over all features' bins (a megabyte on 160 features, more
 * than a core's L2 on the 2-core target).
 */
export interface BinnedRows {
  bins: Uint8Array;
  rows: number;
  /** Columns in `bins`: the features, rounded up to a multiple of FEATURES_PER_PASS. */
  columns: number;
  /** First histogram bin of each feature. */
  offset: Int32Array;
  /** Bins of each feature (its thresholds + 1). */
  count: Int32Array;
  /** Real bins of all features; bin `total` is the junk bin of the padding columns. */
  total: number;
}

export function binRows(features: Float32Array, n: number, d: number, thresholds: Float32Array[]): BinnedRows {
  const offset = new Int32Array(d);
  const count = new Int32Array(d);
  let total = 0;
  for (let f = 0; f < d; f++) {
    offset[f] = total;
    count[f] = thresholds[f].length + 1;
    total += count[f];
  }
  const columns = Math.ceil(d / FEATURES_PER_PASS) * FEATURES_PER_PASS;
  const bins = new Uint8Array(n * columns);
  // Rows in the outer loop: the matrix is read forward once, each column written forward.
  for (let i = 0; i < n; i++) {
    for (let f = 0; f < d; f++) bins[f * n + i] = binOf(thresholds[f], features[i * d + f]);
  }
  return { bins, rows: n, columns, offset, count, total };
}

/** The rows of `a`, then those of `b`: two sets binned with the same thresholds, as one. */
export function appendRows(a: BinnedRows, b: BinnedRows): BinnedRows {
  const n = a.rows + b.rows;
  const bins = new Uint8Array(n * a.columns);
  for (let f = 0; f < a.columns; f++) {
    bins.set(a.bins.subarray(f * a.rows, (f + 1) * a.rows), f * n);
    bins.set(b.bins.subarray(f * b.rows, (f + 1) * b.rows), f * n + a.rows);
  }
  return { ...a, bins, rows: n };
}
