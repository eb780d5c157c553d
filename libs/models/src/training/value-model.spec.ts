import { createRandom } from '@foresight/platform';
import { predictGbdtMargins } from './gbdt';
import { ONNX_AMOUNT_OUTPUT, ONNX_INPUT, ONNX_PROBABILITIES_OUTPUT } from './onnx-export';
import { loadOnnxRuntime } from './onnx-runtime.fixture';
import { gaussian, makeSyntheticData } from './synthetic-data.fixture';
import { trainModel } from './train-model';
import type { TrainingSet } from './training-set';
import { estimateValue, intervalProbability, valueMetrics } from './value-model';

/** Synthetic amounts for the positive rows: log1p(amount) = 3 + x0 + noise(0.5), so the amount depends on a feature the classifier also reads. */
function withAmounts(set: TrainingSet, seed: number): TrainingSet {
  const random = createRandom(seed);
  const d = set.featureNames.length;
  const amounts = Float32Array.from(set.labels, (label, i) => (label === 1 ? Math.expm1(3 + set.features[i * d] + 0.5 * gaussian(random)) : 0));
  return { ...set, amounts };
}

describe('value model', () => {
  it('estimates the mixture of "nothing" and the amount: its mean, and quantiles 0 below 1 - p', () => {
    const spread = { smearing: 1.2, residualQuantiles: Array.from({ length: 101 }, (_, k) => (k - 50) / 50) };
    // p = 0.05: both percentiles fall in the 95% of "nothing".
    const unlikely = estimateValue(0.05, Math.log(101), spread);
    expect(unlikely.value).toBeCloseTo(0.05 * (101 * 1.2 - 1), 9);
    expect([unlikely.p10, unlikely.p90]).toEqual([0, 0]);
    // p = 1: the amount's own percentiles, residual quantiles -0.8 and 0.8 around log1p(100).
    const sure = estimateValue(1, Math.log(101), spread);
    expect(sure.value).toBeCloseTo(101 * 1.2 - 1, 9);
    expect(sure.p10).toBeCloseTo(101 * Math.exp(-0.8) - 1, 9);
    expect(sure.p90).toBeCloseTo(101 * Math.exp(0.8) - 1, 9);
    // p = 0.5: p10 is "nothing", p90 is the amount's 80th percentile ((0.9 - 0.5) / 0.5).
    const even = estimateValue(0.5, Math.log(101), spread);
    expect(even.p10).toBe(0);
    expect(even.p90).toBeCloseTo(101 * Math.exp(0.6) - 1, 9);
  });

  it('measures MAE, RMSE, R² and coverage against known sums', () => {
    const estimates = [
      { value: 1, p10: 0, p90: 2 },
      { value: 3, p10: 2, p90: 4 },
      { value: 5, p10: 0, p90: 1 },
    ];
    const metrics = valueMetrics([2, 3, 7], estimates, [0.5, 0.95, 0.05]);
    expect(metrics.mae).toBeCloseTo(1, 12);
    expect(metrics.rmse).toBeCloseTo(Math.sqrt(5 / 3), 12);
    // Actual mean 4: variance sum 4 + 1 + 9 = 14; squared error 5.
    expect(metrics.r2).toBeCloseTo(1 - 5 / 14, 12);
    expect(metrics.intervalCoverage).toBeCloseTo(2 / 3, 12);
    // What the model expects of its own intervals: 0.9, 0.8 and 0.95 (see intervalProbability).
    expect(metrics.expectedIntervalCoverage).toBeCloseTo((0.9 + 0.8 + 0.95) / 3, 12);
  });

  it("gives each interval the probability its own quantiles put in it, the mass at 0 included", () => {
    // Sure to spend: both ends are amounts, from the 10th to the 90th percentile.
    expect(intervalProbability(1)).toBeCloseTo(0.8, 12);
    expect(intervalProbability(0.95)).toBeCloseTo(0.8, 12);
    // From 0: the whole chance of nothing, up to the 90th percentile.
    expect(intervalProbability(0.85)).toBeCloseTo(0.9, 12);
    expect(intervalProbability(0.2)).toBeCloseTo(0.9, 12);
    // p10 = p90 = 0: the chance of nothing.
    expect(intervalProbability(0.1)).toBeCloseTo(0.9, 12);
    expect(intervalProbability(0.03)).toBeCloseTo(0.97, 12);
    // The same regimes as estimateValue's ends.
    const spread = { smearing: 1, residualQuantiles: [-1, 0, 1] };
    for (const p of [0.03, 0.5, 0.95]) {
      const { p10, p90 } = estimateValue(p, 2, spread);
      expect([p10 > 0, p90 > 0]).toEqual(p === 0.95 ? [true, true] : p === 0.5 ? [false, true] : [false, false]);
    }
  });

  it('trains a classifier and an amount model that ONNX Runtime serves from one graph, with honest figures', async () => {
    const { split } = makeSyntheticData({ trainRows: 6000, validationRows: 3000, features: 8, positiveRate: 0.3, seed: 7 });
    const valued = { train: withAmounts(split.train, 1), validation: withAmounts(split.validation, 2) };
    const trained = trainModel({ algorithm: 'gbdt', split: valued, search: false });
    const value = trained.metrics.value;
    expect(trained.amount).toBeDefined();
    expect(value).toBeDefined();
    // Better than predicting the mean, and the p10-p90 intervals cover the share of users the model expects them to.
    expect(value?.r2).toBeGreaterThan(0.2);
    expect(Math.abs((value?.intervalCoverage ?? 0) - (value?.expectedIntervalCoverage ?? 1))).toBeLessThan(0.03);
    expect(Math.abs((value?.meanPredicted ?? 0) - (value?.meanActual ?? 0)) / (value?.meanActual ?? 1)).toBeLessThan(0.15);

    const d = split.train.featureNames.length;
    const { InferenceSession, Tensor } = await loadOnnxRuntime();
    const session = await InferenceSession.create(trained.onnx);
    try {
      const rows = 200;
      // Copied into the realm ONNX Runtime checks its arrays against (onnx-runtime.fixture).
      const features = Float32Array.from(valued.validation.features.subarray(0, rows * d));
      const output = await session.run({ [ONNX_INPUT]: new Tensor('float32', features, [rows, d]) });
      expect(output[ONNX_AMOUNT_OUTPUT].dims).toEqual([rows, 1]);
      expect(output[ONNX_PROBABILITIES_OUTPUT].dims).toEqual([rows, 2]);
      const served = output[ONNX_AMOUNT_OUTPUT].data as Float32Array;
      const expected = predictGbdtMargins(trained.amount?.parameters ?? { kind: 'gbdt', baseScore: 0, trees: [] }, features, d);
      for (let i = 0; i < rows; i++) expect(served[i]).toBeCloseTo(expected[i], 4);
    } finally {
      await session.release();
    }
  });
});
