import { createRandom } from '@foresight/platform';
import { sigmoid } from './log-loss';
import { TrainingSet, TrainingSplit } from './training-set';

/** Standard normal draw (Box-Muller) from a uniform source. */
export function gaussian(random: () => number): number {
  return Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
}

export interface SyntheticOptions {
  trainRows: number;
  validationRows: number;
  /** At least 6; columns past the sixth are noise. */
  features: number;
  positiveRate: number;
  seed: number;
}

export interface SyntheticData {
  split: TrainingSplit;
  /** The true P(positive) of each validation row. */
  validationTruth: Float64Array;
}

/**
 * A learnable problem with a known truth: the log-odds mix linear terms, an interaction,
 * a step and a count-like integer feature, shifted so the positives make `positiveRate`.
 */
export function makeSyntheticData(options: SyntheticOptions): SyntheticData {
  const random = createRandom(options.seed);
  const d = options.features;
  const n = options.trainRows + options.validationRows;
  const x = new Float32Array(n * d);
  const logit = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    const o = i * d;
    for (let j = 0; j < d; j++) x[o + j] = j === 5 ? Math.floor(random() * 12) : gaussian(random);
    logit[i] = 1.2 * x[o] - 0.8 * x[o + 1] + 0.7 * x[o + 2] * x[o + 3] + (x[o + 4] > 0.5 ? 1 : -0.5) + 0.15 * x[o + 5];
  }
  // Intercept by bisection so the mean true probability hits the requested rate.
  let lo = -30;
  let hi = 30;
  for (let k = 0; k < 100; k++) {
    const mid = (lo + hi) / 2;
    let mean = 0;
    for (let i = 0; i < n; i++) mean += sigmoid(logit[i] + mid);
    if (mean / n < options.positiveRate) lo = mid;
    else hi = mid;
  }
  const truth = logit.map((m) => sigmoid(m + lo));
  const labels = Uint8Array.from(truth, (p) => (random() < p ? 1 : 0));
  const featureNames = Array.from({ length: d }, (_, j) => `feature_${j}`);
  const part = (from: number, to: number): TrainingSet => ({
    features: x.slice(from * d, to * d),
    labels: labels.slice(from, to),
    featureNames: [...featureNames],
  });
  return {
    split: { train: part(0, options.trainRows), validation: part(options.trainRows, n) },
    validationTruth: truth.slice(options.trainRows),
  };
}

/**
 * Log-odds additive over `features` standard normal columns with small weights of alternating sign
 * (intercept -1.5, about 25% positives): a signal one linear fit finds at once and trees only step by step.
 * Parts in order, each the given number of rows; `tuning` only when asked for.
 */
export function makeAdditiveSplit(rows: { train: number; tuning?: number; validation: number }, features: number, seed: number): TrainingSplit {
  const random = createRandom(seed);
  const featureNames = Array.from({ length: features }, (_, j) => `x${j}`);
  const part = (n: number): TrainingSet => {
    const x = Float32Array.from({ length: n * features }, () => gaussian(random));
    const labels = Uint8Array.from({ length: n }, (_, i) => {
      let logit = -1.5;
      for (let j = 0; j < features; j++) logit += (j % 2 === 0 ? 0.3 : -0.25) * x[i * features + j];
      return random() < sigmoid(logit) ? 1 : 0;
    });
    return { features: x, labels, featureNames: [...featureNames] };
  };
  const train = part(rows.train);
  const tuning = rows.tuning === undefined ? undefined : part(rows.tuning);
  return { train, ...(tuning && { tuning }), validation: part(rows.validation) };
}
