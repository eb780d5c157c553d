import type { ValueMetrics } from './value-model';

/** Probability of the positive class above which the positive label is predicted. */
export const DECISION_THRESHOLD = 0.5;

/** Probabilities are clipped this far from 0 and 1 before taking logs. */
const LOG_LOSS_EPSILON = 1e-15;

export interface ValidationMetrics {
  rows: number;
  positives: number;
  /** Share of positive rows. */
  baseRate: number;
  /** Positive is predicted when p > threshold (as the exported ONNX label does). */
  threshold: number;
  accuracy: number;
  /** 0 when nothing is predicted positive. */
  precision: number;
  recall: number;
  /** Area under the ROC curve; tied scores count one half. */
  auc: number;
  logLoss: number;
  /** Expected calibration error over CALIBRATION_BINS equal-width probability bins. */
  calibrationError: number;
  /** A `value` model's figures of the expected sum (absent for the other kinds). */
  value?: ValueMetrics;
}

export const CALIBRATION_BINS = 10;

/**
 * Confidence is the probability of the predicted label, max(p, 1 - p), in [0.5, 1].
 * Bin k covers [edges[k], edges[k + 1]), the last bin includes 1.
 */
export interface ConfidenceHistogram {
  binEdges: number[];
  counts: number[];
  /** Mean confidence; NaN for no predictions. */
  mean: number;
}

/** Fixed edges shared by the validation baseline and live monitoring, so PSI compares like with like. */
export const CONFIDENCE_BIN_EDGES: readonly number[] = Array.from({ length: 11 }, (_, k) => (50 + 5 * k) / 100);

export function computeValidationMetrics(
  labels: Uint8Array,
  probabilities: Float64Array,
  threshold: number = DECISION_THRESHOLD,
): ValidationMetrics {
  const n = labels.length;
  let positives = 0;
  let truePositives = 0;
  let predictedPositives = 0;
  let correct = 0;
  let loss = 0;
  for (let i = 0; i < n; i++) {
    const y = labels[i];
    const predicted = probabilities[i] > threshold ? 1 : 0;
    positives += y;
    predictedPositives += predicted;
    truePositives += y & predicted;
    if (predicted === y) correct++;
    const p = Math.min(Math.max(probabilities[i], LOG_LOSS_EPSILON), 1 - LOG_LOSS_EPSILON);
    loss -= y === 1 ? Math.log(p) : Math.log(1 - p);
  }
  return {
    rows: n,
    positives,
    baseRate: positives / n,
    threshold,
    accuracy: correct / n,
    precision: predictedPositives > 0 ? truePositives / predictedPositives : 0,
    recall: positives > 0 ? truePositives / positives : 0,
    auc: rocAuc(labels, probabilities),
    logLoss: loss / n,
    calibrationError: expectedCalibrationError(labels, probabilities),
  };
}

/**
 * ECE: rows go to `bins` equal-width bins of predicted probability; the gap between a bin's mean
 * prediction and its observed positive share, weighted by the bin's share of rows, summed.
 */
export function expectedCalibrationError(labels: Uint8Array, probabilities: ArrayLike<number>, bins = CALIBRATION_BINS): number {
  const predicted = new Float64Array(bins);
  const observed = new Float64Array(bins);
  const rows = new Float64Array(bins);
  for (let i = 0; i < labels.length; i++) {
    const bin = Math.min(bins - 1, Math.floor(probabilities[i] * bins));
    predicted[bin] += probabilities[i];
    observed[bin] += labels[i];
    rows[bin]++;
  }
  let error = 0;
  for (let bin = 0; bin < bins; bin++) error += Math.abs(predicted[bin] - observed[bin]) / labels.length;
  return error;
}

/**
 * ROC AUC by the Mann-Whitney rank sum with mid-ranks for ties. NaN when one class is
 * absent, because the ranking quality is then undefined.
 */
export function rocAuc(labels: Uint8Array, scores: ArrayLike<number>): number {
  const n = labels.length;
  const order = Array.from({ length: n }, (_, i) => i).sort((a, b) => scores[a] - scores[b]);
  let positives = 0;
  let positiveRankSum = 0;
  for (let start = 0; start < n; ) {
    let end = start + 1;
    while (end < n && scores[order[end]] === scores[order[start]]) end++;
    // Ranks start..end-1 (0-based) share their mean, 1-based: (start + 1 + end) / 2.
    const midRank = (start + 1 + end) / 2;
    for (let k = start; k < end; k++) {
      if (labels[order[k]] === 1) {
        positives++;
        positiveRankSum += midRank;
      }
    }
    start = end;
  }
  const negatives = n - positives;
  if (positives === 0 || negatives === 0) return NaN;
  return (positiveRankSum - (positives * (positives + 1)) / 2) / (positives * negatives);
}

export function confidenceHistogram(probabilities: ArrayLike<number>): ConfidenceHistogram {
  const edges = CONFIDENCE_BIN_EDGES;
  const counts = new Array<number>(edges.length - 1).fill(0);
  let sum = 0;
  for (let i = 0; i < probabilities.length; i++) {
    const confidence = Math.max(probabilities[i], 1 - probabilities[i]);
    sum += confidence;
    let bin = counts.length - 1;
    while (bin > 0 && confidence < edges[bin]) bin--;
    counts[bin]++;
  }
  return { binEdges: [...edges], counts, mean: probabilities.length > 0 ? sum / probabilities.length : NaN };
}

/**
 * PSI = sum (a - e) * ln(a / e) over bins of two histograms (counts or shares; each is
 * normalized). Empty bins are floored at `epsilon` so one empty bin cannot make it infinite.
 */
export function populationStabilityIndex(
  expected: readonly number[],
  actual: readonly number[],
  epsilon = 1e-4,
): number {
  if (expected.length !== actual.length || expected.length === 0) {
    throw new RangeError(`histograms must have the same, non-zero number of bins; got ${expected.length} and ${actual.length}`);
  }
  const expectedTotal = expected.reduce((s, v) => s + v, 0);
  const actualTotal = actual.reduce((s, v) => s + v, 0);
  if (!(expectedTotal > 0) || !(actualTotal > 0)) throw new RangeError('histograms must not be empty');
  let psi = 0;
  for (let k = 0; k < expected.length; k++) {
    const e = Math.max(expected[k] / expectedTotal, epsilon);
    const a = Math.max(actual[k] / actualTotal, epsilon);
    psi += (a - e) * Math.log(a / e);
  }
  return psi;
}
