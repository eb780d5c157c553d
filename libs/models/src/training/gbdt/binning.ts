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

/**
 * Rows of global bin ids (feature offset already added), padded to a multiple of
 * three columns that point at one junk bin. The histogram loop is the whole cost of
 * training; measured on the 2-core target, pre-offset ids and a 3-way unrolled loop
 * run about twice as fast as per-feature Uint8 bins plus an offset lookup.
 */
export interface BinnedRows {
  ids: Uint16Array | Uint32Array;
  /** Columns per row in `ids` (features rounded up to a multiple of 3). */
  stride: number;
  /** First global id of each feature. */
  offset: Int32Array;
  /** Bins of each feature (its thresholds + 1). */
  count: Int32Array;
  /** Real bins of all features; id `total` is the junk bin of the padding columns. */
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
  const stride = Math.ceil(d / 3) * 3;
  const ids = total < 0xffff ? new Uint16Array(n * stride) : new Uint32Array(n * stride);
  for (let i = 0; i < n; i++) {
    const o = i * stride;
    for (let f = 0; f < d; f++) ids[o + f] = offset[f] + binOf(thresholds[f], features[i * d + f]);
    for (let f = d; f < stride; f++) ids[o + f] = total;
  }
  return { ids, stride, offset, count, total };
}

