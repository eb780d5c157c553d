import { sigmoid } from './log-loss';
import { fitLogistic, type LogisticParameters, logScale, predictLogisticMargins, resolveLogisticOptions } from './logistic.trainer';
import { rocAuc } from './metrics';
import { makeSyntheticData } from './synthetic-data.fixture';
import { trainingSetFromRows, TrainingSplit } from './training-set';

const both = (rows: number[][], labels: number[], names = ['x']): TrainingSplit => {
  const set = trainingSetFromRows(names, rows, labels);
  return { train: set, validation: set };
};

/** Root of an increasing function on [lo, hi] by bisection. */
function bisect(f: (c: number) => number, lo: number, hi: number): number {
  for (let k = 0; k < 200; k++) {
    const mid = (lo + hi) / 2;
    if (f(mid) < 0) lo = mid;
    else hi = mid;
  }
  return (lo + hi) / 2;
}

describe('fitLogistic', () => {
  it('classifies a linearly separable 1-D set perfectly', () => {
    const xs = Array.from({ length: 100 }, (_, i) => i - 50 + 0.5);
    const split = both(xs.map((x) => [x]), xs.map((x) => (x > 0 ? 1 : 0)));
    const fit = fitLogistic(split);
    expect(fit.converged).toBe(true);
    const margins = predictLogisticMargins(fit.parameters, split.validation.features, 1);
    margins.forEach((m, i) => expect(m > 0).toBe(xs[i] > 0));
  });

  it('reaches the L2-regularized optimum of a symmetric set, solved independently', () => {
    // Symmetric under (x, y) -> (-x, 1 - y): the optimum has intercept 0, and the
    // coefficient c solves mean((sigmoid(c x) - y) x) + l2 * var(x) * c = 0, since the
    // penalty l2/2 * beta^2 is on the standardized coefficient beta = c * std(x).
    const points: [number, number][] = [[-2, 0], [-1, 1], [1, 0], [2, 1]];
    const rows = Array.from({ length: 100 }, (_, i) => points[i % 4]);
    const l2 = 0.05;
    const fit = fitLogistic(both(rows.map(([x]) => [x]), rows.map(([, y]) => y)), { l2, positiveWeight: 1 });

    const variance = rows.reduce((s, [x]) => s + x * x, 0) / rows.length;
    const gradient = (c: number) =>
      rows.reduce((s, [x, y]) => s + (sigmoid(c * x) - y) * x, 0) / rows.length + l2 * variance * c;
    const c = bisect(gradient, -10, 10);
    expect(c).toBeGreaterThan(0.1);
    expect(fit.parameters.coefficients[0]).toBeCloseTo(c, 6);
    expect(fit.parameters.intercept).toBeCloseTo(0, 6);
    expect(fit.parameters.offset).toBeCloseTo(0, 6);
  });

  it('states the same model in centred and in plain intercept form', () => {
    const { split } = makeSyntheticData({ trainRows: 2000, validationRows: 500, features: 6, positiveRate: 0.3, seed: 6 });
    const { parameters } = fitLogistic(split);
    const margins = predictLogisticMargins(parameters, split.validation.features, 6);
    margins.forEach((m, i) => {
      let plain = parameters.intercept;
      for (let j = 0; j < 6; j++) {
        const x = split.validation.features[i * 6 + j];
        plain += parameters.coefficients[j] * (parameters.logScaled[j] ? logScale(x) : x);
      }
      expect(plain).toBeCloseTo(m, 4);
    });
    expect(rocAuc(split.validation.labels, margins)).toBeGreaterThan(0.75);
  });

  it('measures feature effect as |coefficient x standard deviation| (of the feature as the model reads it)', () => {
    // y depends on a only; b is a noisy copy of nothing, scaled up 1000x.
    const rows = Array.from({ length: 400 }, (_, i) => [((i * 37) % 100) / 10, ((i * 53) % 97) * 1000]);
    const labels = rows.map(([a], i) => (a + ((i * 7) % 5) - 2 > 5 ? 1 : 0));
    const fit = fitLogistic(both(rows, labels, ['a', 'b']));
    const read = (r: number[], j: number) => (fit.parameters.logScaled[j] ? logScale(r[j]) : r[j]);
    const std = (j: number) => {
      const mean = rows.reduce((s, r) => s + read(r, j), 0) / rows.length;
      return Math.sqrt(rows.reduce((s, r) => s + (read(r, j) - mean) ** 2, 0) / rows.length);
    };
    for (const j of [0, 1]) {
      expect(fit.featureEffect[j]).toBeCloseTo(Math.abs(fit.parameters.coefficients[j] * std(j)), 4);
    }
    expect(fit.featureEffect[0]).toBeGreaterThan(10 * fit.featureEffect[1]);
  });

  it('ignores a constant feature instead of dividing by zero', () => {
    const xs = Array.from({ length: 60 }, (_, i) => i);
    const fit = fitLogistic(both(xs.map((x) => [x, 7]), xs.map((x) => (x % 3 === 0 ? 1 : 0)), ['x', 'constant']));
    expect(fit.parameters.coefficients[1]).toBe(0);
    expect(Number.isFinite(fit.parameters.intercept)).toBe(true);
  });

  it('log-scales counts (never negative, above 1 somewhere), not shares or signed values', () => {
    const rows = [
      [0, 0.2, -1.5],
      [12, 1, 0.3],
      [3000, 0.5, 2],
      [1, 0, -0.1],
    ];
    const fit = fitLogistic(both(rows, [0, 1, 1, 0], ['events_30d', 'share', 'trend']));
    expect(fit.parameters.logScaled).toEqual([true, false, false]);
    // The count is centred on the training mean of log(1 + x): (0 + ln 13 + ln 3001 + ln 2) / 4.
    expect(fit.parameters.center[0]).toBeCloseTo((Math.log(13) + Math.log(3001) + Math.log(2)) / 4, 5);
    expect(fit.parameters.center[1]).toBeCloseTo(0.425, 6);
  });

  it('reads a log-scaled feature as log(1 + max(x, 0)) in float32', () => {
    expect(logScale(0)).toBe(0);
    expect(logScale(-5)).toBe(0);
    expect(logScale(3)).toBe(Math.fround(Math.log(4)));
    const parameters: LogisticParameters = { kind: 'logistic', logScaled: [true, false], coefficients: [2, 1], center: [1, 0], offset: 0.5, intercept: -1.5 };
    // 2 * (ln(1 + (e^2 - 1)) - 1) + 1 * (3 - 0) + 0.5 = 2 * (2 - 1) + 3.5 = 5.5
    const [margin] = predictLogisticMargins(parameters, Float32Array.from([Math.exp(2) - 1, 3]), 2);
    expect(margin).toBeCloseTo(5.5, 5);
  });

  it('rejects invalid options', () => {
    expect(() => resolveLogisticOptions({ l2: -1 })).toThrow('invalid logistic options: l2 must be >= 0');
  });
});
