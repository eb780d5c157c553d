import { makeSyntheticData } from './synthetic-data.fixture';
import { predictProbabilities, trainModel } from './train-model';
import { InsufficientTrainingDataError } from './training.errors';
import { TrainingSet, trainingSetFromRows } from './training-set';

const algorithms = ['gbdt', 'logistic'] as const;

/** A set with the given class counts; feature x = label + noise keeps it learnable. */
function setWith(positives: number, negatives: number): TrainingSet {
  const labels = [...new Array<number>(positives).fill(1), ...new Array<number>(negatives).fill(0)];
  return trainingSetFromRows(['x'], labels.map((y, i) => [y + ((i * 7919) % 100) / 60]), labels);
}

/** Mean predicted probability vs mean true probability in ten bins of predicted probability. */
function worstReliabilityGap(predicted: Float64Array, truth: Float64Array): number {
  const order = Array.from(predicted.keys()).sort((a, b) => predicted[a] - predicted[b]);
  let worst = 0;
  for (let bin = 0; bin < 10; bin++) {
    const members = order.slice(Math.floor((bin * order.length) / 10), Math.floor(((bin + 1) * order.length) / 10));
    const mean = (values: Float64Array) => members.reduce((s, i) => s + values[i], 0) / members.length;
    worst = Math.max(worst, Math.abs(mean(predicted) - mean(truth)));
  }
  return worst;
}

describe('trainModel', () => {
  describe.each(algorithms)('%s', (algorithm) => {
    const data = makeSyntheticData({ trainRows: 6000, validationRows: 3000, features: 8, positiveRate: 0.25, seed: 31 });
    const model = trainModel({ algorithm, split: data.split });

    it('chooses its hyperparameters among several candidates on the validation split', () => {
      expect(model.candidatesTried).toBeGreaterThan(1);
      expect(model.hyperparameters).toEqual(expect.any(Object));
    });

    it('reports validation metrics of the calibrated model', () => {
      const { metrics } = model;
      expect(metrics.rows).toBe(3000);
      expect(metrics.baseRate).toBeCloseTo(metrics.positives / 3000, 12);
      expect(metrics.threshold).toBe(0.5);
      expect(metrics.auc).toBeGreaterThan(0.75);
      expect(metrics.accuracy).toBeGreaterThan(1 - metrics.baseRate);
      expect(metrics.logLoss).toBeLessThan(0.5);
      expect(metrics.calibrationError).toBeLessThan(0.03);
      expect(metrics.precision).toBeGreaterThan(0.5);
      expect(metrics.recall).toBeGreaterThan(0.2);
    });

    it('gives probabilities that match the true ones bin by bin', () => {
      const predicted = predictProbabilities(model, data.split.validation.features);
      // The truth is nonlinear, so a linear model is allowed a wider gap.
      expect(worstReliabilityGap(predicted, data.validationTruth)).toBeLessThan(algorithm === 'gbdt' ? 0.05 : 0.08);
    });

    it('returns importance weights summing to 1, most important first', () => {
      const weights = model.featureImportance.map((f) => f.weight);
      expect(weights.reduce((s, w) => s + w, 0)).toBeCloseTo(1, 12);
      expect([...weights].sort((a, b) => b - a)).toEqual(weights);
      expect(model.featureImportance[0].feature).toBe('feature_0');
      expect(model.featureImportance.map((f) => f.feature).sort()).toEqual([...model.featureNames].sort());
    });

    it('keeps the validation confidence distribution as the drift baseline', () => {
      const { confidenceBaseline } = model;
      expect(confidenceBaseline.counts.reduce((s, c) => s + c, 0)).toBe(3000);
      expect(confidenceBaseline.mean).toBeGreaterThan(0.5);
      expect(confidenceBaseline.mean).toBeLessThan(1);
    });

    it('is plain data that survives structured cloning', () => {
      const copy = structuredClone(model);
      expect(copy).toEqual(model);
      expect(predictProbabilities(copy, data.split.validation.features)).toEqual(
        predictProbabilities(model, data.split.validation.features),
      );
    });
  });

  it.each(algorithms)('%s: copes with a 3%% positive rate', (algorithm) => {
    const data = makeSyntheticData({ trainRows: 15000, validationRows: 10000, features: 8, positiveRate: 0.03, seed: 17 });
    // The balanced class weights of the first candidate alone: what calibration must undo.
    const model = trainModel({ algorithm, split: data.split, searchBudgetCells: 0 });
    expect(model.candidatesTried).toBe(1);
    const probabilities = predictProbabilities(model, data.split.validation.features);
    const meanProbability = probabilities.reduce((s, p) => s + p, 0) / probabilities.length;
    expect(model.metrics.baseRate).toBeGreaterThan(0.02);
    expect(model.metrics.baseRate).toBeLessThan(0.04);
    expect(model.metrics.auc).toBeGreaterThan(0.8);
    // Balanced class weights would put this near 0.5 without calibration.
    expect(Math.abs(meanProbability - model.metrics.baseRate)).toBeLessThan(0.01);
  });

  it.each(algorithms)('%s: serves a model fitted on the newest rows too, not only on those before the holdout', (algorithm) => {
    // What decides the label changed: in the older training rows x says nothing, at the newest
    // cutoffs (tuning and validation) it decides. A model fitted on the training rows alone ranks
    // the validation rows at chance (AUC near 0.5).
    let state = 7;
    const random = () => (state = (Math.imul(state, 48_271) >>> 0) % 2_147_483_647) / 2_147_483_647;
    const part = (rows: number, recent: boolean) => {
      const xs = Array.from({ length: rows }, () => [random(), random()]);
      const labels = xs.map(([x]) => (recent ? x + 0.3 * random() > 0.85 : random() < 0.3) ? 1 : 0);
      return trainingSetFromRows(['x', 'noise'], xs, labels);
    };
    const split = { train: part(4000, false), tuning: part(3000, true), validation: part(3000, true) };
    const model = trainModel({ algorithm, split });
    expect(model.trainRows).toBe(7000);
    expect(model.metrics.auc).toBeGreaterThan(0.8);
    expect(model.featureImportance[0].feature).toBe('x');
  });

  it("credits a gbdt's linear base in its importance, not only its trees' splits", () => {
    const data = makeSyntheticData({ trainRows: 4000, validationRows: 2000, features: 10, positiveRate: 0.3, seed: 19 });
    const model = trainModel({ algorithm: 'gbdt', split: data.split, search: false, options: { linearBase: { l2: 1e-2, maxIterations: 5 } } });
    const ranked = model.featureImportance.map((f) => f.feature);
    // feature_0 has the largest linear weight, which the linear base fits and the trees then hardly split on.
    expect(ranked[0]).toBe('feature_0');
    expect(ranked.slice(-4).sort()).toEqual(['feature_6', 'feature_7', 'feature_8', 'feature_9']);
  });

  it('separates a linearly separable set with the logistic model', () => {
    const xs = Array.from({ length: 300 }, (_, i) => (i - 150) / 10 + 0.05);
    const set = trainingSetFromRows(['x'], xs.map((x) => [x]), xs.map((x) => (x > 0 ? 1 : 0)));
    const model = trainModel({ algorithm: 'logistic', split: { train: set, validation: set } });
    expect(model.metrics.accuracy).toBe(1);
    expect(model.metrics.auc).toBe(1);
  });

  it('refuses to train on too few positives, saying how many it found', () => {
    const run = () => trainModel({ algorithm: 'gbdt', split: { train: setWith(12, 4000), validation: setWith(100, 100) } });
    expect(run).toThrow(InsufficientTrainingDataError);
    expect(run).toThrow('needs at least 50 positive and 50 negative training examples; found 12 positive, 4000 negative');
    try {
      run();
    } catch (error) {
      expect(error).toMatchObject({ code: 'insufficient_training_data', part: 'train', positives: 12, negatives: 4000 });
    }
  });

  it('refuses to calibrate on a validation set with too few of a class', () => {
    const run = () => trainModel({ algorithm: 'logistic', split: { train: setWith(200, 200), validation: setWith(5, 500) } });
    expect(run).toThrow('needs at least 10 positive and 10 negative validation examples; found 5 positive, 500 negative');
  });
});
