import { createRandom } from '@foresight/platform';
import {
  computeValidationMetrics,
  CONFIDENCE_BIN_EDGES,
  confidenceHistogram,
  expectedCalibrationError,
  populationStabilityIndex,
  rocAuc,
} from './metrics';

const labels = (...values: number[]) => Uint8Array.from(values);

describe('rocAuc', () => {
  it('is 1 for a perfect ordering and 0 for a reversed one', () => {
    const y = labels(0, 0, 0, 1, 1);
    expect(rocAuc(y, [0.1, 0.2, 0.3, 0.8, 0.9])).toBe(1);
    expect(rocAuc(y, [0.9, 0.8, 0.7, 0.2, 0.1])).toBe(0);
  });

  it('is 0.5 when every score ties', () => {
    expect(rocAuc(labels(0, 1, 0, 1, 1), [0.3, 0.3, 0.3, 0.3, 0.3])).toBe(0.5);
  });

  it('matches hand-counted pairs, ties counting one half', () => {
    // Positives {0.35, 0.8} vs negatives {0.1, 0.4}: 3 of 4 pairs ordered.
    expect(rocAuc(labels(0, 0, 1, 1), [0.1, 0.4, 0.35, 0.8])).toBe(0.75);
    // Positives {0.5, 0.9} vs negatives {0.5, 0.2}: 1 tie + 3 ordered = 3.5 of 4.
    expect(rocAuc(labels(1, 0, 0, 1), [0.5, 0.5, 0.2, 0.9])).toBe(0.875);
  });

  it('equals the pairwise definition on random scores with many ties', () => {
    const random = createRandom(7);
    const n = 400;
    const y = Uint8Array.from({ length: n }, () => (random() < 0.3 ? 1 : 0));
    const scores = Array.from({ length: n }, (_, i) => Math.round((random() + y[i] * 0.3) * 10) / 10);
    let wins = 0;
    let pairs = 0;
    for (let i = 0; i < n; i++) {
      for (let j = 0; j < n; j++) {
        if (y[i] !== 1 || y[j] !== 0) continue;
        pairs++;
        wins += scores[i] > scores[j] ? 1 : scores[i] === scores[j] ? 0.5 : 0;
      }
    }
    expect(rocAuc(y, scores)).toBeCloseTo(wins / pairs, 12);
  });

  it('is NaN when a class is missing', () => {
    expect(rocAuc(labels(1, 1), [0.2, 0.4])).toBeNaN();
  });
});

describe('computeValidationMetrics', () => {
  it('computes the confusion-matrix rates and log loss of a hand case', () => {
    const y = labels(1, 1, 0, 0, 1);
    const p = Float64Array.from([0.9, 0.4, 0.6, 0.2, 0.5]);
    const m = computeValidationMetrics(y, p);
    // Predicted positive (p > 0.5): rows 0 and 2. TP = 1, FP = 1, FN = 2, TN = 1.
    expect(m).toMatchObject({ rows: 5, positives: 3, baseRate: 0.6, threshold: 0.5, accuracy: 0.4, precision: 0.5 });
    expect(m.recall).toBeCloseTo(1 / 3, 12);
    const expectedLoss = -(Math.log(0.9) + Math.log(0.4) + Math.log(0.4) + Math.log(0.8) + Math.log(0.5)) / 5;
    expect(m.logLoss).toBeCloseTo(expectedLoss, 12);
  });

  it('reports precision 0 rather than NaN when nothing is predicted positive', () => {
    expect(computeValidationMetrics(labels(1, 0), Float64Array.from([0.1, 0.2])).precision).toBe(0);
  });
});

describe('expectedCalibrationError', () => {
  it('weights each bin\'s gap between mean prediction and positive share by its rows', () => {
    // Bin [0.1, 0.2): predictions 0.1, 0.1, 0.1, 0.1 with one positive: gap |0.1 - 0.25| = 0.15, 4 of 6 rows.
    // Bin [0.9, 1]: predictions 0.9 and 1 (the top bin includes 1), both positive: gap |0.95 - 1| = 0.05, 2 of 6 rows.
    const value = expectedCalibrationError(labels(0, 0, 1, 0, 1, 1), Float64Array.from([0.1, 0.1, 0.1, 0.1, 0.9, 1]));
    expect(value).toBeCloseTo((4 / 6) * 0.15 + (2 / 6) * 0.05, 12);
  });

  it('is 0 for predictions that match every bin\'s frequency', () => {
    expect(expectedCalibrationError(labels(1, 0, 1, 0), Float64Array.from([0.5, 0.5, 0.5, 0.5]))).toBe(0);
  });
});

describe('confidenceHistogram', () => {
  it('bins max(p, 1 - p) into ten fixed bins from 0.5 to 1', () => {
    const h = confidenceHistogram([0.5, 0.6, 0.4, 0.97, 1, 0.02, 0.549]);
    expect(h.binEdges).toEqual([...CONFIDENCE_BIN_EDGES]);
    expect(h.binEdges).toHaveLength(11);
    // Confidences 0.5, 0.6, 0.6, 0.97, 1, 0.98, 0.549.
    expect(h.counts).toEqual([2, 0, 2, 0, 0, 0, 0, 0, 0, 3]);
    expect(h.mean).toBeCloseTo((0.5 + 0.6 + 0.6 + 0.97 + 1 + 0.98 + 0.549) / 7, 12);
  });
});

describe('populationStabilityIndex', () => {
  it('is 0 for identical distributions, whatever the totals', () => {
    expect(populationStabilityIndex([5, 10, 0, 85], [5, 10, 0, 85])).toBe(0);
    expect(populationStabilityIndex([1, 2, 7], [10, 20, 70])).toBeCloseTo(0, 12);
  });

  it('matches a hand computation', () => {
    // (0.9 - 0.5) ln(0.9 / 0.5) + (0.1 - 0.5) ln(0.1 / 0.5)
    const expected = 0.4 * Math.log(1.8) - 0.4 * Math.log(0.2);
    expect(populationStabilityIndex([50, 50], [90, 10])).toBeCloseTo(expected, 12);
  });

  it('stays finite when a bin is empty on one side', () => {
    const psi = populationStabilityIndex([0, 100], [50, 50], 1e-4);
    expect(psi).toBeCloseTo((0.5 - 1e-4) * Math.log(0.5 / 1e-4) + (0.5 - 1) * Math.log(0.5 / 1), 12);
  });

  it('rejects histograms of different lengths or with no counts', () => {
    expect(() => populationStabilityIndex([1, 2], [1, 2, 3])).toThrow(RangeError);
    expect(() => populationStabilityIndex([0, 0], [1, 2])).toThrow('must not be empty');
  });
});
