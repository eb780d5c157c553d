export interface FeatureImportance {
  feature: string;
  /** Share of the model's total importance; the weights of a model sum to 1. */
  weight: number;
}

/**
 * Normalizes raw importances to sum 1, most important first (ties keep feature order).
 * A model that uses no feature at all gets weight 0 everywhere rather than an invented split.
 */
export function normalizeImportance(featureNames: string[], raw: ArrayLike<number>): FeatureImportance[] {
  let total = 0;
  for (let j = 0; j < featureNames.length; j++) total += Math.abs(raw[j]);
  return featureNames
    .map((feature, j) => ({ feature, weight: total > 0 ? Math.abs(raw[j]) / total : 0 }))
    .sort((a, b) => b.weight - a.weight);
}
