import { featureDirections, withDirections } from './feature-direction';
import type { GbdtParameters } from './gbdt';
import type { LogisticParameters } from './logistic.trainer';
import { makeSyntheticData } from './synthetic-data.fixture';
import { trainModel } from './train-model';

/** Rows of `d` columns where column j is `(i * (j + 3)) % 17`: every column varies. */
function grid(rows: number, d: number): Float32Array {
  return Float32Array.from({ length: rows * d }, (_, k) => (Math.floor(k / d) * ((k % d) + 3)) % 17);
}

describe('featureDirections', () => {
  it('gives the sign of each logistic coefficient, and none for a zero one', () => {
    const logistic: LogisticParameters = { kind: 'logistic', coefficients: [0.8, -1.5, 0], center: [0, 0, 0], offset: 0.1, intercept: 0.1, logScaled: [true, false, false] };
    expect(featureDirections(logistic, grid(300, 3), 3)).toEqual(['raises', 'lowers', 'none']);
  });

  it('follows the leaves of a tree: a split whose right side scores higher raises, the reverse lowers', () => {
    const stump = (feature: number, leftValue: number, rightValue: number) => ({ feature: [feature, -1, -1], threshold: [8, 0, 0], left: [1, 0, 0], right: [2, 0, 0], value: [0, leftValue, rightValue], cover: [2, 1, 1] });
    const gbdt: GbdtParameters = { kind: 'gbdt', baseScore: 0, trees: [stump(0, -1, 1), stump(2, 0.5, -0.25)] };
    expect(featureDirections(gbdt, grid(300, 3), 3)).toEqual(['raises', 'none', 'lowers']);
  });

  it('says none for a feature that never varies', () => {
    const logistic: LogisticParameters = { kind: 'logistic', coefficients: [2], center: [0], offset: 0, intercept: 0, logScaled: [false] };
    expect(featureDirections(logistic, new Float32Array(100).fill(3), 1)).toEqual(['none']);
  });

  // The fixture's truth: +1.2·x0 − 0.8·x1 + 0.7·x2·x3 + (x4 > 0.5 ? 1 : −0.5) + 0.15·x5, columns 6 and 7 noise.
  it.each(['gbdt', 'logistic'] as const)('recovers the known directions of a trained %s model', (algorithm) => {
    const data = makeSyntheticData({ trainRows: 4000, validationRows: 2000, features: 8, positiveRate: 0.3, seed: 7 });
    const model = trainModel({ algorithm, split: data.split });
    const direction = Object.fromEntries(model.featureImportance.map((f) => [f.feature, f.direction]));
    expect(direction).toMatchObject({ feature_0: 'raises', feature_1: 'lowers', feature_4: 'raises', feature_5: 'raises' });
  });
});

describe('withDirections', () => {
  it('adds each feature its direction, keeping the importance order', () => {
    expect(withDirections([{ feature: 'b', weight: 0.7 }, { feature: 'a', weight: 0.3 }], ['a', 'b'], ['lowers', 'raises'])).toEqual([
      { feature: 'b', weight: 0.7, direction: 'raises' },
      { feature: 'a', weight: 0.3, direction: 'lowers' },
    ]);
  });
});
