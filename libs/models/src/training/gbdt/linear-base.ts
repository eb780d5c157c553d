import { fitLogistic, type LogisticParameters } from '../logistic.trainer';
import { rowCount, type TrainingSet } from '../training-set';
import type { GbdtOptions } from './gbdt-options';

/**
 * Rows the linear base is fitted on at most. A Newton step costs rows x features² (160 features: ~0.2 s
 * per 10,000 rows on the 2-core target), and a dozen coefficients per informative feature are well
 * estimated by far fewer rows than the trees need; above this, an evenly spaced share of the rows.
 */
export const LINEAR_BASE_MAX_ROWS = 20_000;

/**
 * The L2 logistic regression a GBDT is boosted from (GbdtOptions.linearBase), with the trees'
 * class weight so both fit one objective: on at most LINEAR_BASE_MAX_ROWS rows, in at most the
 * option's Newton steps (a handful reach the optimum of this smooth, penalized problem).
 */
export function fitLinearBase(train: TrainingSet, linearBase: NonNullable<GbdtOptions['linearBase']>, positiveWeight: number): LogisticParameters {
  return fitLogistic({ train: evenlySpacedRows(train, LINEAR_BASE_MAX_ROWS), validation: train }, { ...linearBase, positiveWeight }).parameters;
}

/** Every k-th row, k the smallest step leaving at most `limit` rows (training rows run user by user, so every user's rows are sampled alike). */
function evenlySpacedRows(set: TrainingSet, limit: number): TrainingSet {
  const n = rowCount(set);
  if (n <= limit) return set;
  const d = set.featureNames.length;
  const step = Math.ceil(n / limit);
  const m = Math.ceil(n / step);
  const features = new Float32Array(m * d);
  const labels = new Uint8Array(m);
  for (let k = 0; k < m; k++) {
    features.set(set.features.subarray(k * step * d, (k * step + 1) * d), k * d);
    labels[k] = set.labels[k * step];
  }
  return { features, labels, featureNames: set.featureNames };
}
