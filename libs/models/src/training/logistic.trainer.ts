import { PositiveWeight, resolvePositiveWeight } from './class-weight';
import { marginLogLoss, sigmoid } from './log-loss';
import { rowCount, TrainingSplit } from './training-set';

export interface LogisticOptions {
  /**
   * L2 penalty on the standardized coefficients (not the intercept). The objective is
   * mean weighted log loss + l2/2 * |beta|^2, so the penalty does not shrink as rows grow.
   */
  l2: number;
  positiveWeight: PositiveWeight;
  maxIterations: number;
  /** Stop when the Newton decrement (predicted objective drop) falls below this. */
  tolerance: number;
}

export const DEFAULT_LOGISTIC_OPTIONS: Readonly<LogisticOptions> = {
  l2: 1e-3,
  positiveWeight: 'balanced',
  maxIterations: 50,
  tolerance: 1e-12,
};

/**
 * Coefficients in the original feature space: margin = offset + sum_j coef_j (x_j - center_j).
 * The centred form is what predictions and ONNX evaluate: folding the means into one
 * intercept can cancel large terms, which float32 inference would round badly.
 */
export interface LogisticParameters {
  kind: 'logistic';
  /**
   * Per feature: read as log(1 + max(x, 0)) (logScaled) before centring. Counts, durations and amounts
   * are heavy-tailed: on the log scale one coefficient fits a user with 3 events and one with 3,000.
   */
  logScaled: boolean[];
  /** float32 values. */
  coefficients: number[];
  /** Training means, float32 values. */
  center: number[];
  /** Margin at the center, float32. */
  offset: number;
  /** The same model as `intercept + sum_j coef_j x'_j` (x' log-scaled where logScaled), for readers; not used to predict. */
  intercept: number;
}

export interface LogisticFit {
  parameters: LogisticParameters;
  /** |coef_j * std_j|: the margin change per training standard deviation of each feature. */
  featureEffect: Float64Array;
  iterations: number;
  converged: boolean;
}

export function resolveLogisticOptions(options: Partial<LogisticOptions> = {}): LogisticOptions {
  const o: LogisticOptions = { ...DEFAULT_LOGISTIC_OPTIONS, ...options };
  const checks: [boolean, string][] = [
    [o.l2 >= 0, 'l2 must be >= 0'],
    [Number.isInteger(o.maxIterations) && o.maxIterations >= 1, 'maxIterations must be an integer >= 1'],
    [o.tolerance > 0, 'tolerance must be > 0'],
  ];
  const failed = checks.filter(([ok]) => !ok).map(([, message]) => message);
  if (failed.length > 0) throw new RangeError(`invalid logistic options: ${failed.join('; ')}`);
  return o;
}

/** Armijo sufficient-decrease constant of the backtracking line search. */
const ARMIJO = 1e-4;
const MAX_HALVINGS = 40;
const MAX_RIDGE_ATTEMPTS = 20;

/**
 * Damped Newton's method on standardized features. The problem is convex and small
 * (d + 1 unknowns), so Newton converges in a handful of passes where first-order
 * methods need hundreds, and the line search keeps it safe on separable data.
 */
export function fitLogistic(split: TrainingSplit, options: Partial<LogisticOptions> = {}): LogisticFit {
  const opts = resolveLogisticOptions(options);
  const { labels } = split.train;
  const d = split.train.featureNames.length;
  const n = rowCount(split.train);
  const logScaled = countLikeFeatures(split.train.features, d);
  const features = scaleFeatures(split.train.features, d, logScaled);
  const positiveWeight = resolvePositiveWeight(labels, opts.positiveWeight);

  const mean = new Float64Array(d);
  const scale = new Float64Array(d);
  for (let i = 0; i < n; i++) for (let j = 0; j < d; j++) mean[j] += features[i * d + j];
  for (let j = 0; j < d; j++) mean[j] /= n;
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < d; j++) {
      const c = features[i * d + j] - mean[j];
      scale[j] += c * c;
    }
  }
  // A constant column standardizes to zeros either way; scale 1 avoids dividing by 0.
  for (let j = 0; j < d; j++) scale[j] = Math.sqrt(scale[j] / n) || 1;

  const weight = new Float64Array(n);
  let totalWeight = 0;
  let weightedPositives = 0;
  for (let i = 0; i < n; i++) {
    weight[i] = labels[i] === 1 ? positiveWeight : 1;
    totalWeight += weight[i];
    if (labels[i] === 1) weightedPositives += weight[i];
  }

  // beta[0] is the intercept, beta[1 + j] the coefficient of standardized feature j.
  const p = d + 1;
  const beta = new Float64Array(p);
  beta[0] = Math.log(weightedPositives / (totalWeight - weightedPositives));
  const margin = new Float64Array(n).fill(beta[0]);
  const stepMargin = new Float64Array(n);
  const z = new Float64Array(p);
  const gradient = new Float64Array(p);
  const hessian = new Float64Array(p * p);
  const step = new Float64Array(p);

  const objective = (t: number): number => {
    let loss = 0;
    for (let i = 0; i < n; i++) loss += weight[i] * marginLogLoss(margin[i] + t * stepMargin[i], labels[i]);
    let penalty = 0;
    for (let k = 1; k < p; k++) {
      const b = beta[k] + t * step[k];
      penalty += b * b;
    }
    return loss / totalWeight + (opts.l2 / 2) * penalty;
  };
  const standardize = (i: number): void => {
    z[0] = 1;
    for (let j = 0; j < d; j++) z[j + 1] = (features[i * d + j] - mean[j]) / scale[j];
  };

  let iterations = 0;
  let converged = false;
  while (iterations < opts.maxIterations) {
    iterations++;
    gradient.fill(0);
    hessian.fill(0);
    for (let i = 0; i < n; i++) {
      standardize(i);
      const q = sigmoid(margin[i]);
      const r = (weight[i] * (q - labels[i])) / totalWeight;
      const s = (weight[i] * q * (1 - q)) / totalWeight;
      for (let a = 0; a < p; a++) {
        gradient[a] += r * z[a];
        const sa = s * z[a];
        for (let b = a; b < p; b++) hessian[a * p + b] += sa * z[b];
      }
    }
    for (let k = 1; k < p; k++) {
      gradient[k] += opts.l2 * beta[k];
      hessian[k * p + k] += opts.l2;
    }
    for (let a = 0; a < p; a++) for (let b = 0; b < a; b++) hessian[a * p + b] = hessian[b * p + a];

    solveSymmetricPositiveDefinite(hessian, gradient, step, p);
    let decrement = 0;
    for (let k = 0; k < p; k++) {
      step[k] = -step[k];
      decrement -= gradient[k] * step[k];
    }
    if (decrement / 2 < opts.tolerance) {
      converged = true;
      break;
    }

    for (let i = 0; i < n; i++) {
      standardize(i);
      let m = 0;
      for (let k = 0; k < p; k++) m += z[k] * step[k];
      stepMargin[i] = m;
    }
    const current = objective(0);
    let t = 1;
    let halvings = 0;
    while (objective(t) > current - ARMIJO * t * decrement && halvings < MAX_HALVINGS) {
      t /= 2;
      halvings++;
    }
    for (let k = 0; k < p; k++) beta[k] += t * step[k];
    for (let i = 0; i < n; i++) margin[i] += t * stepMargin[i];
  }

  const coefficients: number[] = [];
  const center: number[] = [];
  const featureEffect = new Float64Array(d);
  let intercept = beta[0];
  for (let j = 0; j < d; j++) {
    const coef = Math.fround(beta[j + 1] / scale[j]);
    coefficients.push(coef);
    center.push(Math.fround(mean[j]));
    featureEffect[j] = Math.abs(beta[j + 1]);
    intercept -= coef * center[j];
  }
  return {
    parameters: { kind: 'logistic', logScaled, coefficients, center, offset: Math.fround(beta[0]), intercept },
    featureEffect,
    iterations,
    converged,
  };
}

/** log(1 + max(x, 0)) in float32, step by step as the ONNX graph computes it (Max, Add, Log). */
export function logScale(x: number): number {
  return Math.fround(Math.log(Math.fround(Math.max(x, 0) + 1)));
}

/** Features never negative in training and above 1 somewhere: counts, durations, amounts (not shares or signed trends). */
function countLikeFeatures(features: Float32Array, d: number): boolean[] {
  const min = new Float64Array(d).fill(Infinity);
  const max = new Float64Array(d).fill(-Infinity);
  for (let k = 0; k < features.length; k++) {
    const j = k % d;
    if (features[k] < min[j]) min[j] = features[k];
    if (features[k] > max[j]) max[j] = features[k];
  }
  return Array.from({ length: d }, (_, j) => min[j] >= 0 && max[j] > 1);
}

function scaleFeatures(features: Float32Array, d: number, logScaled: readonly boolean[]): Float32Array {
  if (!logScaled.includes(true)) return features;
  return features.map((x, k) => (logScaled[k % d] ? logScale(x) : x));
}

/** Margins as the exported ONNX graph computes them: float32 log scaling and centring, then a dot product. */
export function predictLogisticMargins(parameters: LogisticParameters, features: Float32Array, d: number): Float64Array {
  const n = features.length / d;
  const margins = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    let m = 0;
    for (let j = 0; j < d; j++) m += logisticTerm(parameters, j, features[i * d + j]);
    margins[i] = m + parameters.offset;
  }
  return margins;
}

/** Feature j's term of the margin: its coefficient times its centred (log-scaled where so fitted) value, float32 as ONNX centres it. */
export function logisticTerm({ coefficients, center, logScaled }: LogisticParameters, j: number, x: number): number {
  return coefficients[j] * Math.fround((logScaled[j] ? logScale(x) : x) - center[j]);
}

/**
 * Solves A x = b for a symmetric positive definite A (row-major, size p) by Cholesky.
 * Adds a growing ridge if rounding leaves A numerically semi-definite, which happens
 * when the data separate perfectly and the intercept's curvature underflows.
 */
function solveSymmetricPositiveDefinite(a: Float64Array, b: Float64Array, x: Float64Array, p: number): void {
  const l = new Float64Array(p * p);
  let trace = 0;
  for (let k = 0; k < p; k++) trace += a[k * p + k];
  let ridge = 0;
  for (let attempt = 0; !cholesky(a, l, p, ridge); attempt++) {
    if (attempt === MAX_RIDGE_ATTEMPTS) throw new Error('logistic regression: Newton system is not positive definite');
    ridge = ridge === 0 ? 1e-12 * (trace / p || 1) : ridge * 10;
  }
  for (let i = 0; i < p; i++) {
    let s = b[i];
    for (let k = 0; k < i; k++) s -= l[i * p + k] * x[k];
    x[i] = s / l[i * p + i];
  }
  for (let i = p - 1; i >= 0; i--) {
    let s = x[i];
    for (let k = i + 1; k < p; k++) s -= l[k * p + i] * x[k];
    x[i] = s / l[i * p + i];
  }
}

function cholesky(a: Float64Array, l: Float64Array, p: number, ridge: number): boolean {
  l.fill(0);
  for (let i = 0; i < p; i++) {
    for (let j = 0; j <= i; j++) {
      let s = a[i * p + j] + (i === j ? ridge : 0);
      for (let k = 0; k < j; k++) s -= l[i * p + k] * l[j * p + k];
      if (i === j) {
        if (!(s > 0)) return false;
        l[i * p + i] = Math.sqrt(s);
      } else {
        l[i * p + j] = s / l[j * p + j];
      }
    }
  }
  return true;
}
