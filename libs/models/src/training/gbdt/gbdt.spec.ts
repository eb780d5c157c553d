import { createRandom } from '@foresight/platform';
import { sigmoid } from '../log-loss';
import { fitLogistic, predictLogisticMargins } from '../logistic.trainer';
import { rocAuc } from '../metrics';
import { gaussian, makeAdditiveSplit, makeSyntheticData } from '../synthetic-data.fixture';
import { refitSplit, trainingSetFromRows, TrainingSplit } from '../training-set';
import {
  binOf,
  binRows,
  computeBinThresholds,
  fitGbdt,
  kthLargest,
  predictGbdtMargins,
  resolveGbdtOptions,
} from './index';
import { fitLinearBase, LINEAR_BASE_MAX_ROWS } from './linear-base';

/** x = 0..99, positive from 37 on: the only perfect split is x <= 36. */
function steppedSplit(): TrainingSplit {
  const xs = Array.from({ length: 100 }, (_, i) => i);
  const set = trainingSetFromRows(['x'], xs.map((x) => [x]), xs.map((x) => (x >= 37 ? 1 : 0)));
  return { train: set, validation: set };
}

describe('fitGbdt', () => {
  it('splits a separable 1-D set at the separating value', () => {
    const fit = fitGbdt(steppedSplit(), { maxTrees: 1, maxDepth: 1, minSamplesLeaf: 1, learningRate: 1 });
    const [tree] = fit.parameters.trees;
    expect(tree.feature[0]).toBe(0);
    expect(tree.threshold[0]).toBe(36);
    expect(tree.value[tree.left[0]]).toBeLessThan(0);
    expect(tree.value[tree.right[0]]).toBeGreaterThan(0);
  });

  it('separates that set perfectly with default options', () => {
    const split = steppedSplit();
    const fit = fitGbdt(split, { minSamplesLeaf: 5 });
    const margins = predictGbdtMargins(fit.parameters, split.validation.features, 1);
    margins.forEach((m, x) => expect(m > 0).toBe(x >= 37));
  });

  it('chooses the same root split as an exhaustive search over every threshold', () => {
    const random = createRandom(5);
    const rows = Array.from({ length: 400 }, () => [Math.floor(random() * 30), Math.floor(random() * 40) / 4, Math.floor(random() * 8)]);
    const labels = rows.map(([a, b, c]) => (random() < sigmoid(0.15 * a - 0.3 * b + 0.2 * c - 0.5) ? 1 : 0));
    const set = trainingSetFromRows(['a', 'b', 'c'], rows, labels);
    const minSamplesLeaf = 15;
    const l2 = 1;
    const fit = fitGbdt({ train: set, validation: set }, { maxTrees: 1, maxDepth: 1, minSamplesLeaf, l2, positiveWeight: 1 });

    // Gradients at the base score, then every (feature, distinct value) candidate.
    const positives = labels.reduce<number>((s, y) => s + y, 0);
    const p0 = sigmoid(Math.fround(Math.log(positives / (labels.length - positives))));
    const g = labels.map((y) => p0 - y);
    const h = labels.map(() => p0 * (1 - p0));
    const score = (gs: number, hs: number) => (gs * gs) / (hs + l2);
    const G = g.reduce((s, v) => s + v, 0);
    const H = h.reduce((s, v) => s + v, 0);
    let best = { feature: -1, threshold: 0, gain: 0 };
    for (let f = 0; f < 3; f++) {
      for (const t of new Set(rows.map((r) => r[f]))) {
        const left = rows.map((r, i) => (r[f] <= t ? i : -1)).filter((i) => i >= 0);
        if (left.length < minSamplesLeaf || rows.length - left.length < minSamplesLeaf) continue;
        const gl = left.reduce((s, i) => s + g[i], 0);
        const hl = left.reduce((s, i) => s + h[i], 0);
        const gain = 0.5 * (score(gl, hl) + score(G - gl, H - hl) - score(G, H));
        if (gain > best.gain + 1e-12) best = { feature: f, threshold: t, gain };
      }
    }
    const [tree] = fit.parameters.trees;
    expect({ feature: tree.feature[0], threshold: tree.threshold[0] }).toEqual({
      feature: best.feature,
      threshold: Math.fround(best.threshold),
    });
    expect(fit.featureGain[best.feature]).toBeCloseTo(best.gain, 8);
  });

  it('learns a nonlinear problem and credits the informative features', () => {
    const { split, validationTruth } = makeSyntheticData({ trainRows: 4000, validationRows: 2000, features: 8, positiveRate: 0.3, seed: 2 });
    const fit = fitGbdt(split);
    const margins = predictGbdtMargins(fit.parameters, split.validation.features, 8);
    const auc = rocAuc(split.validation.labels, margins);
    const ceiling = rocAuc(split.validation.labels, validationTruth);
    expect(auc).toBeGreaterThan(ceiling - 0.03);
    // Features 0-5 carry signal (0 the most), 6 and 7 are noise: noise ranks last.
    const gain = Array.from(fit.featureGain);
    expect(Math.max(...gain)).toBe(gain[0]);
    expect(Math.max(gain[6], gain[7])).toBeLessThan(Math.min(...gain.slice(0, 6)));
  });

  it('early-stops on the tuning rows when the split has them, not on the validation rows', () => {
    const { split } = makeSyntheticData({ trainRows: 3000, validationRows: 1000, features: 6, positiveRate: 0.3, seed: 4 });
    const flipped = { ...split.validation, labels: split.validation.labels.map((y) => 1 - y) };
    const options = { maxTrees: 60, earlyStoppingPatience: 5 };
    // Tuning rows whose labels are all wrong get worse with every tree: one round is kept, whatever validation says.
    expect(fitGbdt({ train: split.train, tuning: flipped, validation: split.validation }, options).bestIteration).toBe(1);
    expect(fitGbdt({ train: split.train, tuning: split.validation, validation: flipped }, options).bestIteration).toBeGreaterThan(10);
  });

  it('stops early on noise and keeps only the best rounds', () => {
    const random = createRandom(9);
    const rows = Array.from({ length: 1500 }, () => [random(), random()]);
    const labels = rows.map(() => (random() < 0.4 ? 1 : 0));
    const train = trainingSetFromRows(['a', 'b'], rows.slice(0, 1000), labels.slice(0, 1000));
    const validation = trainingSetFromRows(['a', 'b'], rows.slice(1000), labels.slice(1000));
    const fit = fitGbdt({ train, validation }, { maxTrees: 200, earlyStoppingPatience: 10 });
    expect(fit.treesTrained).toBeLessThan(200);
    expect(fit.treesTrained - fit.bestIteration).toBe(10);
    expect(fit.parameters.trees).toHaveLength(fit.bestIteration);
  });

  it('keeps every round it is given when the split has no tuning rows (a refit)', () => {
    const { split } = makeSyntheticData({ trainRows: 2000, validationRows: 500, features: 4, positiveRate: 0.3, seed: 5 });
    expect(refitSplit(split)).toBeNull();
    const refit = refitSplit({ ...split, tuning: split.validation });
    expect(refit?.train.labels).toHaveLength(2500);
    expect(refit?.tuning?.labels).toHaveLength(0);
    // Noise labels would early-stop after a round or two; without tuning rows nothing stops it.
    const noise = { ...refit!.train, labels: refit!.train.labels.map((_, i) => (i * 7) % 5 === 0 ? 1 : 0) };
    const fit = fitGbdt({ ...refit!, train: noise }, { maxTrees: 17, earlyStoppingPatience: 2 });
    expect(fit.bestIteration).toBe(17);
    expect(fit.parameters.trees).toHaveLength(17);
  });

  it('with GOSS sampling still learns, and reproducibly for a given seed', () => {
    const { split } = makeSyntheticData({ trainRows: 5000, validationRows: 2000, features: 6, positiveRate: 0.2, seed: 4 });
    const options = { gossMinRows: 0, maxTrees: 60 };
    const first = fitGbdt(split, options);
    const again = fitGbdt(split, options);
    const exact = fitGbdt(split, { maxTrees: 60 });
    expect(again.parameters).toEqual(first.parameters);
    expect(first.parameters).not.toEqual(exact.parameters);
    const auc = (fit: typeof first) => rocAuc(split.validation.labels, predictGbdtMargins(fit.parameters, split.validation.features, 6));
    expect(auc(first)).toBeGreaterThan(auc(exact) - 0.02);
  });

  it('boosts from a linear base: its margins start every row, and a smooth many-feature signal is learnt in fewer trees', () => {
    const d = 20;
    const split = makeAdditiveSplit({ train: 3000, validation: 2000 }, d, 12);
    const options = { maxTrees: 10, positiveWeight: 1 };
    const linearBase = { l2: 1e-2, maxIterations: 5 };
    const based = fitGbdt(split, { ...options, linearBase });
    const constant = fitGbdt(split, options);
    const { linear } = based.parameters;
    expect(linear?.coefficients).toHaveLength(d);
    expect(constant.parameters.linear).toBeUndefined();
    // The served margin is the trees' plus the linear margin.
    const treesOnly = predictGbdtMargins({ ...based.parameters, linear: undefined }, split.validation.features, d);
    const linearMargins = predictLogisticMargins(linear!, split.validation.features, d);
    const margins = predictGbdtMargins(based.parameters, split.validation.features, d);
    margins.forEach((m, i) => expect(m).toBeCloseTo(treesOnly[i] + linearMargins[i], 5));
    const auc = (fit: typeof based) => rocAuc(split.validation.labels, predictGbdtMargins(fit.parameters, split.validation.features, d));
    expect(auc(based)).toBeGreaterThan(auc(constant) + 0.03);
  });

  it('fits the linear base on every k-th row beyond LINEAR_BASE_MAX_ROWS rows', () => {
    const random = createRandom(13);
    const n = 2 * LINEAR_BASE_MAX_ROWS + 1;
    const rows = Array.from({ length: n }, () => [gaussian(random), gaussian(random)]);
    const labels = rows.map(([a, b]) => (random() < sigmoid(a - 0.5 * b) ? 1 : 0));
    const train = trainingSetFromRows(['a', 'b'], rows, labels);
    const options = { l2: 1e-2, maxIterations: 5 };
    // Step 3 leaves 13,334 rows: 0, 3, 6, ...
    const kept = rows.flatMap((_, i) => (i % 3 === 0 ? [i] : []));
    const everyThird = trainingSetFromRows(['a', 'b'], kept.map((i) => rows[i]), kept.map((i) => labels[i]));
    const onSample = fitLogistic({ train: everyThird, validation: everyThird }, { ...options, positiveWeight: 1 }).parameters;
    expect(fitLinearBase(train, options, 1)).toEqual(onSample);
  });

  it('rejects invalid options, naming each problem', () => {
    expect(() => resolveGbdtOptions({ maxBins: 256, learningRate: 0 })).toThrow(
      'invalid GBDT options: learningRate must be in (0, 1]; maxBins must be an integer in [2, 255]',
    );
  });
});

describe('histogram binning', () => {
  it('uses every distinct value as a threshold when there are few', () => {
    const features = Float32Array.from([3, 1, 2, 1, 3, 0.1]);
    expect(Array.from(computeBinThresholds(features, 6, 1, 255)[0])).toEqual([Math.fround(0.1), 1, 2]);
  });

  it('caps bins at maxBins with thresholds that are float32 feature values', () => {
    const random = createRandom(1);
    const n = 20000;
    const features = Float32Array.from({ length: n }, (_, i) => (i % 3 === 0 ? 0 : random() * 0.3));
    const [thresholds] = computeBinThresholds(features, n, 1, 255);
    const values = new Set(features);
    expect(thresholds.length).toBeLessThanOrEqual(254);
    expect(thresholds.length).toBeGreaterThan(200);
    thresholds.forEach((t) => expect(values.has(t)).toBe(true));
    // A third of the rows are 0: that mass gets a bin of its own.
    expect(thresholds[0]).toBe(0);
    // Bins hold roughly equal shares of the rest.
    const counts = new Array<number>(thresholds.length + 1).fill(0);
    features.forEach((x) => counts[binOf(thresholds, x)]++);
    expect(Math.max(...counts.slice(1))).toBeLessThan(3 * (n / 255));
  });

  it('cuts the values beside a heavy mass into equal shares of them', () => {
    const random = createRandom(2);
    const n = 20000;
    const features = Float32Array.from({ length: n }, (_, i) => (i % 10 === 0 ? random() * 100 : 0));
    const [thresholds] = computeBinThresholds(features, n, 1, 255);
    expect(thresholds[0]).toBe(0);
    const counts = new Array<number>(thresholds.length + 1).fill(0);
    features.forEach((x) => counts[binOf(thresholds, x)]++);
    // 2,000 values above 0 in 254 bins: about 8 each (shares of all rows gave the smallest 230 a bin each, the rest 22 bins of 80).
    expect(Math.max(...counts.slice(1))).toBeLessThan(3 * ((n / 10) / 254));
  });

  it('stores each feature as a column of byte bins, however many bins the features have in total', () => {
    const d = 300;
    const thresholds = Array.from({ length: d }, () => Float32Array.from({ length: 254 }, (_, k) => k));
    const features = Float32Array.from({ length: 2 * d }, (_, k) => ((k % d) + Math.floor(k / d)) % 255);
    const binned = binRows(features, 2, d, thresholds);
    expect(binned.bins).toHaveLength(2 * binned.columns);
    expect(binned.columns).toBe(300);
    expect([binned.bins[(d - 1) * 2], binned.bins[(d - 1) * 2 + 1]]).toEqual([(d - 1) % 255, d % 255]);
    expect(binned.offset[d - 1]).toBe((d - 1) * 255);
    expect(binned.total).toBe(300 * 255);
  });
});

describe('kthLargest', () => {
  it('agrees with sorting, duplicates included', () => {
    const random = createRandom(8);
    const values = Float64Array.from({ length: 1001 }, () => Math.floor(random() * 50));
    const sorted = [...values].sort((a, b) => b - a);
    for (const k of [1, 2, 200, 500, 1001]) expect(kthLargest(values.slice(), k)).toBe(sorted[k - 1]);
  });
});
