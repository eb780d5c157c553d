import type { TrainingSet } from '../training';

/**
 * Features a model keeps of its candidates: room for every kind of signal (events, screens, values,
 * trends), few enough that features describing nothing cannot crowd out the ones that do.
 */
export const FEATURE_BUDGET = 160;
/** Quantile bins a feature is cut into to measure what it says about the label. */
const MI_BINS = 16;

/**
 * Mutual information (nats, bias-corrected) between a feature cut into bins and the binary label: the smallest value
 * in a bin of its own, the others in quantile bins, equal values always in one bin. A feature that is
 * mostly 0 (a rare event) is thus measured by whether it is 0, which quantiles alone would not see.
 */
export function mutualInformation(values: Float32Array, labels: Uint8Array): number {
  const n = labels.length;
  const sorted = values.slice().sort();
  let first = 0;
  while (first < n && sorted[first] === sorted[0]) first++;
  if (first === n) return 0;
  const thresholds = [sorted[first]];
  const rest = n - first;
  for (let k = 1; k < MI_BINS - 1; k++) {
    const threshold = sorted[first + Math.floor((k * rest) / (MI_BINS - 1))];
    if (threshold > thresholds[thresholds.length - 1]) thresholds.push(threshold);
  }
  const bins = thresholds.length + 1;
  const joint = new Float64Array(bins * 2);
  for (let i = 0; i < n; i++) {
    let bin = 0;
    while (bin < thresholds.length && values[i] >= thresholds[bin]) bin++;
    joint[bin * 2 + labels[i]]++;
  }
  const positives = labels.reduce((sum, label) => sum + label, 0);
  const byLabel = [n - positives, positives];
  let information = 0;
  let filled = 0;
  for (let bin = 0; bin < bins; bin++) {
    const inBin = joint[bin * 2] + joint[bin * 2 + 1];
    if (inBin > 0) filled++;
    for (let label = 0; label < 2; label++) {
      const count = joint[bin * 2 + label];
      if (count > 0) information += (count / n) * Math.log((count * n) / (inBin * byLabel[label]));
    }
  }
  // Less the estimate's bias (Miller-Madow), (bins - 1) / 2n for a binary label: without it, a feature
  // that says nothing but fills many bins (a screen's dwell) outranks a rare event that says much.
  return information - (filled - 1) / (2 * n);
}

/**
 * The `budget` features of `set` that say most about its labels (mutual information), and every name
 * in `required` (features the pipeline itself reads). `set` must be training rows only: choosing on
 * the rows that tune or validate would flatter the model's metrics.
 */
export function selectFeatures(set: TrainingSet, budget: number, required: readonly string[]): Set<string> {
  const { featureNames, features, labels } = set;
  const width = featureNames.length;
  const column = new Float32Array(labels.length);
  const ranked = featureNames.map((name, j) => {
    for (let i = 0; i < labels.length; i++) column[i] = features[i * width + j];
    return { name, information: mutualInformation(column, labels) };
  });
  ranked.sort((a, b) => b.information - a.information);
  const chosen = new Set(required.filter((name) => featureNames.includes(name)));
  for (const { name } of ranked) {
    if (chosen.size >= budget) break;
    chosen.add(name);
  }
  return chosen;
}
