import type { TrainingSet } from '../training';
import { binOf, computeBinThresholds } from '../training/gbdt';

/**
 * Features a model keeps of its candidates: room for every kind of signal (events, screens, values,
 * trends), few enough that features describing nothing cannot crowd out the ones that do.
 */
export const FEATURE_BUDGET = 160;
/** Bins a feature is cut into to measure what it says about the label. */
const MI_BINS = 16;

/**
 * Mutual information (nats, bias-corrected) between a feature cut into bins and the binary label, the
 * bins the trees cut it into (computeBinThresholds), only fewer: a value heavier than one bin's share
 * (the 0 of a rare event) has a bin of its own, so a feature that is mostly 0 is measured by whether
 * it is 0, which quantiles alone would not see.
 */
export function mutualInformation(values: Float32Array, labels: Uint8Array): number {
  const n = labels.length;
  const [thresholds] = computeBinThresholds(values, n, 1, MI_BINS);
  const bins = thresholds.length + 1;
  const joint = new Float64Array(bins * 2);
  for (let i = 0; i < n; i++) joint[binOf(thresholds, values[i]) * 2 + labels[i]]++;
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
