import { createRandom } from '@foresight/platform';
import { applyCalibration, fitPlattScaling } from './calibration';
import { GbdtParameters } from './gbdt';
import { sigmoid } from './log-loss';
import { LogisticParameters } from './logistic.trainer';
import { predictMargins } from './model-parameters';
import { gaussian } from './synthetic-data.fixture';

describe('fitPlattScaling', () => {
  const random = createRandom(21);
  const n = 20000;
  const margins = Float64Array.from({ length: n }, () => 1.5 * gaussian(random));
  // True probabilities follow sigmoid(2m - 1): Platt's model holds exactly.
  const labels = Uint8Array.from(margins, (m) => (random() < sigmoid(2 * m - 1) ? 1 : 0));

  it('recovers the slope and intercept that generated the labels', () => {
    const { a, b } = fitPlattScaling(margins, labels);
    expect(a).toBeCloseTo(2, 1);
    expect(b).toBeCloseTo(-1, 1);
  });

  it('makes the mean calibrated probability equal the mean (smoothed) target', () => {
    const { a, b } = fitPlattScaling(margins, labels);
    const positives = labels.reduce((s, y) => s + y, 0);
    const meanTarget = (positives * ((positives + 1) / (positives + 2)) + (n - positives) / (n - positives + 2)) / n;
    const meanProbability = margins.reduce((s, m) => s + sigmoid(a * m + b), 0) / n;
    expect(meanProbability).toBeCloseTo(meanTarget, 6);
    expect(Math.abs(meanProbability - positives / n)).toBeLessThan(1e-3);
  });

  it('keeps a finite slope on a perfectly separated validation set', () => {
    const m = Float64Array.from([-3, -2, -1, 1, 2, 3]);
    const { a, b } = fitPlattScaling(m, Uint8Array.from([0, 0, 0, 1, 1, 1]));
    expect(Number.isFinite(a) && a > 0).toBe(true);
    expect(b).toBeCloseTo(0, 6);
  });
});

describe('applyCalibration', () => {
  const calibration = { a: 0.7, b: -0.4 };
  const features = Float32Array.from([0, 0.5, 1, 2, -1, 3]);

  it('folds a * margin + b into a tree ensemble', () => {
    const gbdt: GbdtParameters = {
      kind: 'gbdt',
      baseScore: Math.fround(0.3),
      trees: [
        { feature: [0, -1, -1], threshold: [Math.fround(0.75), 0, 0], left: [1, -1, -1], right: [2, -1, -1], value: [0, Math.fround(-1.2), Math.fround(0.9)], cover: [10, 4, 6] },
        { feature: [0, -1, -1], threshold: [Math.fround(1.5), 0, 0], left: [1, -1, -1], right: [2, -1, -1], value: [0, Math.fround(0.25), Math.fround(-0.5)], cover: [10, 7, 3] },
      ],
    };
    const before = predictMargins(gbdt, features, 1);
    const after = predictMargins(applyCalibration(gbdt, calibration), features, 1);
    after.forEach((m, i) => expect(m).toBeCloseTo(0.7 * before[i] - 0.4, 6));
  });

  it('folds a * margin + b into trees boosted from a linear margin, stretching the linear part too', () => {
    const linear: LogisticParameters = {
      kind: 'logistic',
      logScaled: [false],
      coefficients: [Math.fround(0.9)],
      center: [Math.fround(1)],
      offset: Math.fround(-0.3),
      intercept: -0.3 - Math.fround(0.9),
    };
    const gbdt: GbdtParameters = {
      kind: 'gbdt',
      baseScore: 0,
      trees: [{ feature: [0, -1, -1], threshold: [Math.fround(0.75), 0, 0], left: [1, -1, -1], right: [2, -1, -1], value: [0, Math.fround(-0.2), Math.fround(0.4)], cover: [10, 4, 6] }],
      linear,
    };
    const before = predictMargins(gbdt, features, 1);
    const after = predictMargins(applyCalibration(gbdt, calibration), features, 1);
    after.forEach((m, i) => expect(m).toBeCloseTo(0.7 * before[i] - 0.4, 6));
  });

  it('folds a * margin + b into logistic coefficients', () => {
    const logistic: LogisticParameters = {
      kind: 'logistic',
      logScaled: [false, true],
      coefficients: [Math.fround(1.3), Math.fround(-0.6)],
      center: [Math.fround(0.4), Math.fround(1.1)],
      offset: Math.fround(0.2),
      intercept: 0.2 - 1.3 * Math.fround(0.4) + 0.6 * Math.fround(1.1),
    };
    const calibrated = applyCalibration(logistic, calibration);
    const before = predictMargins(logistic, features, 2);
    const after = predictMargins(calibrated, features, 2);
    after.forEach((m, i) => expect(m).toBeCloseTo(0.7 * before[i] - 0.4, 6));
    expect(calibrated.kind === 'logistic' && calibrated.intercept).toBeCloseTo(0.7 * logistic.intercept - 0.4, 12);
  });
});
