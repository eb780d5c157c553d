import { fitGbdtRegression, type GbdtParameters, predictGbdtMargins } from './gbdt';
import { refitSplit, type TrainingSet, type TrainingSplit, tuningSet } from './training-set';

/** Residual quantiles kept: every percentile, 0 to 100. */
const RESIDUAL_QUANTILES = 101;
/** The interval a `value` prediction gives: from its 10th to its 90th percentile. */
export const VALUE_INTERVAL = { low: 0.1, high: 0.9 } as const;

/**
 * What serving needs beside the amount model's score to turn it into a value and an interval. The
 * score is log1p(amount) given any; on the validation rows that had an amount:
 * - `smearing`: mean of exp(residual) (Duan's smearing), so exp(score) * smearing - 1 is the mean
 *   amount, not the median a plain back-transform would give;
 * - `residualQuantiles`: the residuals' percentiles 0 to 100, the spread of the amount around its score.
 */
export interface AmountSpread {
  smearing: number;
  residualQuantiles: number[];
}

export interface AmountModel {
  parameters: GbdtParameters;
  spread: AmountSpread;
}

/** One `value` prediction: the expected sum over the horizon and its p10-p90 interval. */
export interface ValueEstimate {
  value: number;
  p10: number;
  p90: number;
}

/** Validation figures of a `value` model, on every validation row (with or without an amount). */
export interface ValueMetrics {
  /** Mean absolute error of the expected value against the actual sum. */
  mae: number;
  rmse: number;
  /** 1 - squared error / variance of the actual sums; 0 is no better than predicting their mean. */
  r2: number;
  /** Share of rows whose actual sum fell within [p10, p90]. */
  intervalCoverage: number;
  /**
   * The share the model itself expects within [p10, p90] on the same rows (intervalProbability): not 0.8,
   * because the interval of a user likely to spend nothing takes in the whole mass at 0. The interval is
   * honest when intervalCoverage is close to it. Absent from versions trained before it was measured.
   */
  expectedIntervalCoverage?: number;
  meanActual: number;
  meanPredicted: number;
}

/**
 * The amount model of a `value` model: a GBDT regression of log1p(amount) on the rows that had an
 * amount (the classifier answers whether there is one), early-stopped on the tuning rows, then refitted
 * with train and tuning rows for the rounds kept (as the classifier is). Its spread comes from the
 * validation rows, which it never saw.
 */
export function fitAmountModel(split: TrainingSplit): AmountModel {
  const train = withAmount(split.train);
  const tuning = withAmount(tuningSet(split));
  const search = fitGbdtRegression({ train: train.set, tuning: tuning.set, validation: tuning.set }, { train: train.targets, tuning: tuning.targets });
  const refit = refitSplit(split);
  let { parameters } = search;
  if (refit) {
    const all = withAmount(refit.train);
    const empty = { features: new Float32Array(0), labels: new Uint8Array(0), featureNames: all.set.featureNames };
    parameters = fitGbdtRegression({ train: all.set, tuning: empty, validation: empty }, { train: all.targets, tuning: new Float32Array(0) }, { maxTrees: search.bestIteration }).parameters;
  }
  const validation = withAmount(split.validation);
  const scores = predictGbdtMargins(parameters, validation.set.features, validation.set.featureNames.length);
  const residuals = Array.from(scores, (score, i) => validation.targets[i] - score);
  return { parameters, spread: spreadOf(residuals) };
}

function spreadOf(residuals: number[]): AmountSpread {
  if (residuals.length === 0) return { smearing: 1, residualQuantiles: [0] };
  const sorted = [...residuals].sort((a, b) => a - b);
  const smearing = sorted.reduce((sum, r) => sum + Math.exp(r), 0) / sorted.length;
  const residualQuantiles = Array.from({ length: RESIDUAL_QUANTILES }, (_, k) => quantileOfSorted(sorted, k / (RESIDUAL_QUANTILES - 1)));
  return { smearing, residualQuantiles };
}

/** Linear interpolation between order statistics (numpy's default). */
function quantileOfSorted(sorted: readonly number[], level: number): number {
  const position = level * (sorted.length - 1);
  const below = Math.floor(position);
  const above = Math.min(sorted.length - 1, below + 1);
  return sorted[below] + (sorted[above] - sorted[below]) * (position - below);
}

/**
 * The expected sum and its interval, from P(any amount) and the amount model's score. The sum is 0
 * with probability 1 - p and otherwise exp(score + residual) - 1, the residual drawn from the
 * validation residuals; its mean is p * (exp(score) * smearing - 1), its quantile q is 0 when
 * q <= 1 - p and otherwise the amount's quantile (q - (1 - p)) / p. So a user unlikely to spend gets
 * p10 = 0 and a p90 that says how much if they do.
 */
export function estimateValue(probability: number, score: number, spread: AmountSpread): ValueEstimate {
  const expected = Math.max(0, Math.exp(score) * spread.smearing - 1);
  const quantile = (q: number) => {
    if (q <= 1 - probability) return 0;
    const level = (q - (1 - probability)) / probability;
    return Math.max(0, Math.expm1(score + quantileOfSorted(spread.residualQuantiles, level)));
  };
  return { value: probability * expected, p10: quantile(VALUE_INTERVAL.low), p90: quantile(VALUE_INTERVAL.high) };
}

/**
 * The probability estimateValue's model gives its own interval for a user with P(any amount) =
 * `probability`: the sum is 0 with probability z = 1 - p, otherwise continuous. When z is below the
 * interval's low level, both ends are amounts and it holds high - low (0.8); when z reaches the low level
 * but not the high one, it runs from 0 (the whole mass at 0) to the high quantile and holds `high`
 * (0.9); from the high level on, p10 = p90 = 0 and it holds the mass at 0, z.
 */
export function intervalProbability(probability: number): number {
  const atZero = 1 - probability;
  if (atZero < VALUE_INTERVAL.low) return VALUE_INTERVAL.high - VALUE_INTERVAL.low;
  if (atZero < VALUE_INTERVAL.high) return VALUE_INTERVAL.high;
  return atZero;
}

/** The value metrics of estimates, made from `probabilities` of any amount, against the rows' actual sums. */
export function valueMetrics(actual: ArrayLike<number>, estimates: readonly ValueEstimate[], probabilities: ArrayLike<number>): ValueMetrics {
  const n = estimates.length;
  let mean = 0;
  let meanPredicted = 0;
  for (let i = 0; i < n; i++) {
    mean += actual[i] / n;
    meanPredicted += estimates[i].value / n;
  }
  let absolute = 0;
  let squared = 0;
  let variance = 0;
  let covered = 0;
  let expectedCovered = 0;
  for (let i = 0; i < n; i++) {
    expectedCovered += intervalProbability(probabilities[i]);
    const { value, p10, p90 } = estimates[i];
    absolute += Math.abs(value - actual[i]);
    squared += (value - actual[i]) ** 2;
    variance += (actual[i] - mean) ** 2;
    if (actual[i] >= p10 && actual[i] <= p90) covered++;
  }
  return { mae: absolute / n, rmse: Math.sqrt(squared / n), r2: variance > 0 ? 1 - squared / variance : 0, intervalCoverage: covered / n, expectedIntervalCoverage: expectedCovered / n, meanActual: mean, meanPredicted };
}

/** A set's rows that had an amount, and log1p of each amount: what the amount model regresses. */
function withAmount(set: TrainingSet): { set: TrainingSet; targets: Float32Array } {
  const d = set.featureNames.length;
  const amounts = set.amounts;
  if (!amounts) throw new RangeError('a value model is trained on rows with amounts');
  const rows: number[] = [];
  for (let i = 0; i < set.labels.length; i++) if (set.labels[i] === 1) rows.push(i);
  const features = new Float32Array(rows.length * d);
  const targets = new Float32Array(rows.length);
  rows.forEach((row, k) => {
    features.set(set.features.subarray(row * d, (row + 1) * d), k * d);
    targets[k] = Math.log1p(amounts[row]);
  });
  return { set: { features, labels: new Uint8Array(rows.length).fill(1), featureNames: set.featureNames }, targets };
}
