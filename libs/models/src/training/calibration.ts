import { GbdtParameters } from './gbdt';
import { marginLogLoss, sigmoid } from './log-loss';
import { LogisticParameters } from './logistic.trainer';
import { ModelParameters } from './model-parameters';

/** Calibrated probability = sigmoid(a * margin + b). */
export interface PlattCalibration {
  a: number;
  b: number;
}

const MAX_ITERATIONS = 100;
const MIN_STEP = 1e-10;

/**
 * Platt scaling fitted by Newton's method with backtracking (Lin, Lin & Weng, 2007).
 * Targets are Platt's smoothed labels (N+ + 1)/(N+ + 2) and 1/(N- + 2): they keep the
 * slope finite when the validation set is perfectly separated.
 */
export function fitPlattScaling(margins: Float64Array, labels: Uint8Array): PlattCalibration {
  const n = labels.length;
  let positives = 0;
  for (let i = 0; i < n; i++) positives += labels[i];
  const negatives = n - positives;
  const high = (positives + 1) / (positives + 2);
  const low = 1 / (negatives + 2);
  const target = (i: number): number => (labels[i] === 1 ? high : low);
  const objective = (a: number, b: number): number => {
    let sum = 0;
    for (let i = 0; i < n; i++) sum += marginLogLoss(a * margins[i] + b, target(i));
    return sum;
  };

  let a = 0;
  let b = Math.log((positives + 1) / (negatives + 1));
  let value = objective(a, b);
  for (let iteration = 0; iteration < MAX_ITERATIONS; iteration++) {
    let ga = 0;
    let gb = 0;
    // A tiny ridge keeps the 2x2 system solvable when all margins are equal.
    let haa = 1e-12;
    let hab = 0;
    let hbb = 1e-12;
    for (let i = 0; i < n; i++) {
      const m = margins[i];
      const p = sigmoid(a * m + b);
      const r = p - target(i);
      const s = p * (1 - p);
      ga += r * m;
      gb += r;
      haa += s * m * m;
      hab += s * m;
      hbb += s;
    }
    if (Math.abs(ga) < 1e-9 * n && Math.abs(gb) < 1e-9 * n) break;
    const det = haa * hbb - hab * hab;
    const da = -(hbb * ga - hab * gb) / det;
    const db = -(haa * gb - hab * ga) / det;
    const slope = ga * da + gb * db;
    let step = 1;
    while (step >= MIN_STEP) {
      const next = objective(a + step * da, b + step * db);
      if (next <= value + 1e-4 * step * slope) {
        a += step * da;
        b += step * db;
        value = next;
        break;
      }
      step /= 2;
    }
    if (step < MIN_STEP) break;
  }
  return { a, b };
}

/**
 * The same model with the calibration folded in, so exported ONNX needs no extra step:
 * every term of the margin is scaled by a and b joins the constant term.
 */
export function applyCalibration(parameters: ModelParameters, calibration: PlattCalibration): ModelParameters {
  return parameters.kind === 'gbdt'
    ? calibrateGbdt(parameters, calibration)
    : calibrateLogistic(parameters, calibration);
}

function calibrateGbdt(parameters: GbdtParameters, { a, b }: PlattCalibration): GbdtParameters {
  return {
    kind: 'gbdt',
    baseScore: Math.fround(a * parameters.baseScore + b),
    trees: parameters.trees.map((tree) => ({ ...tree, value: tree.value.map((v) => Math.fround(a * v)) })),
    // The shift b is in the base score already: the linear part is only stretched.
    ...(parameters.linear && { linear: calibrateLogistic(parameters.linear, { a, b: 0 }) }),
  };
}

function calibrateLogistic(parameters: LogisticParameters, { a, b }: PlattCalibration): LogisticParameters {
  return {
    kind: 'logistic',
    logScaled: [...parameters.logScaled],
    coefficients: parameters.coefficients.map((c) => Math.fround(a * c)),
    center: [...parameters.center],
    offset: Math.fround(a * parameters.offset + b),
    intercept: a * parameters.intercept + b,
  };
}
