import { featureLabel } from '@foresight/features';
import { type ExplainableModel, explainRow } from '@foresight/models';

/** Contributions listed one by one; the rest are summed into one `other` entry. */
export const LISTED_CONTRIBUTIONS = 10;

export interface FeatureContribution {
  /** The feature id, or `other` for the sum of every feature not listed. */
  feature: string;
  label: string;
  /** The user's value of the feature as the model read it; null for `other`. */
  value: number | null;
  /** Its share of the raw score, in log-odds. */
  contribution: number;
}

/** A prediction's raw score (log-odds before calibration) as `base` plus the listed contributions, exactly. */
export interface PredictionExplanation {
  base: number;
  contributions: FeatureContribution[];
}

/** The explanation of one user's feature vector: the largest contributions by size (ties in feature order), the rest summed. */
export function explainPrediction(model: ExplainableModel, featureNames: readonly string[], row: Float32Array): PredictionExplanation {
  const { base, contributions } = explainRow(model, row);
  const ranked = featureNames
    .map((feature, j) => ({ feature, label: featureLabel(feature), value: row[j], contribution: contributions[j] }))
    .sort((a, b) => Math.abs(b.contribution) - Math.abs(a.contribution));
  if (ranked.length <= LISTED_CONTRIBUTIONS) return { base, contributions: ranked };
  const rest = ranked.slice(LISTED_CONTRIBUTIONS);
  const other = { feature: 'other', label: `${rest.length} other features`, value: null, contribution: rest.reduce((sum, c) => sum + c.contribution, 0) };
  return { base, contributions: [...ranked.slice(0, LISTED_CONTRIBUTIONS), other] };
}
