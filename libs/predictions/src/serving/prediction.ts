import type { StoredUserId } from '@foresight/events';
import type { PredictionExplanation } from './prediction-explanation';

/** One served prediction (the API's prediction, plus the additive modelId and version). */
export interface Prediction {
  model: string;
  label: string;
  confidence: number;
  modelId: string;
  version: number;
  /** `value` models: the expected sum of the property over the horizon, and its p10-p90 interval. */
  value?: number;
  interval?: { p10: number; p90: number };
  /** `inactivity` models: the user was not active within the model's activeDays; the answer is such users' churn rate. */
  dormant?: true;
  /**
   * With `explain=true` only: why this score. Null for a version trained before explanations were
   * stored; absent when not asked for.
   */
  explanation?: PredictionExplanation | null;
}

/** The predicted user, as stored (the caller's own id is the edge's to give back), and one prediction per serving model. */
export interface UserPredictions {
  user: StoredUserId;
  predictions: Prediction[];
}

/** Who to predict for: a user, or the user a session belongs to. */
export type PredictionSubject = { user: StoredUserId } | { sessionId: string };

/** A model whose label for a user changed after new events. */
export interface LabelChange extends Prediction {
  previousLabel: string;
}
