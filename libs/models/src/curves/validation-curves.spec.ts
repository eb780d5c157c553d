import { RELIABILITY_BINS, SCORE_HISTOGRAM_BINS, THRESHOLD_STEPS, validationCurves } from './validation-curves';

describe('validationCurves', () => {
  // Four rows: two positives scored 0.9 and 0.35, two negatives scored 0.3 and 0.05.
  const labels = Uint8Array.from([1, 1, 0, 0]);
  const scores = Float64Array.from([0.9, 0.35, 0.3, 0.05]);
  const curves = validationCurves(labels, scores);

  it('bins rows by score for the reliability diagram, with the observed positive rate per bin', () => {
    expect(curves.reliability).toHaveLength(RELIABILITY_BINS);
    const third = curves.reliability[3];
    expect(third).toEqual({ lower: 0.3, upper: 0.4, rows: 2, meanPredicted: expect.closeTo(0.325, 10), observedRate: 0.5 });
    expect(curves.reliability[9]).toMatchObject({ rows: 1, observedRate: 1 });
    expect(curves.reliability[5]).toMatchObject({ rows: 0, meanPredicted: null, observedRate: null });
    expect(curves.reliability.reduce((sum, bin) => sum + bin.rows, 0)).toBe(4);
  });

  it('splits the score histogram by actual outcome', () => {
    const { binEdges, positives, negatives } = curves.scoreHistogram;
    expect(binEdges).toHaveLength(SCORE_HISTOGRAM_BINS + 1);
    expect(positives[18]).toBe(1); // 0.9
    expect(positives[7]).toBe(1); // 0.35
    expect(negatives[6]).toBe(1); // 0.3
    expect(negatives[1]).toBe(1); // 0.05
    expect(positives.reduce((a, b) => a + b)).toBe(2);
    expect(negatives.reduce((a, b) => a + b)).toBe(2);
  });

  it('gives precision, recall, share flagged and the confusion matrix at each cutoff', () => {
    expect(curves.thresholds).toHaveLength(THRESHOLD_STEPS + 1);
    const atZero = curves.thresholds[0];
    expect(atZero).toMatchObject({ threshold: 0, precision: 0.5, recall: 1, flaggedShare: 1, truePositives: 2, falsePositives: 2 });
    const atHalf = curves.thresholds.find((point) => point.threshold === 0.5);
    expect(atHalf).toEqual({ threshold: 0.5, precision: 1, recall: 0.5, flaggedShare: 0.25, truePositives: 1, falsePositives: 0, falseNegatives: 1, trueNegatives: 2 });
    // At 0.32 the 0.35 positive is flagged and the 0.3 negative is not.
    expect(curves.thresholds.find((point) => point.threshold === 0.32)).toMatchObject({ truePositives: 2, falsePositives: 0, recall: 1 });
    expect(curves.thresholds[THRESHOLD_STEPS]).toMatchObject({ threshold: 1, precision: null, recall: 0, flaggedShare: 0, trueNegatives: 2, falseNegatives: 2 });
  });

  it('refuses labels and scores of different lengths', () => {
    expect(() => validationCurves(labels, scores.subarray(1))).toThrow(RangeError);
  });
});
