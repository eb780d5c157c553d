/** One served prediction (SPEC "Prediction", plus the additive modelId and version). */
export interface Prediction {
  model: string;
  label: string;
  confidence: number;
  modelId: string;
  version: number;
}

export interface PredictionResult {
  userId: string;
  sessionId?: string;
  predictions: Prediction[];
}

/** Who to predict for: a user, or the user a session belongs to. */
export type PredictionSubject = { userId: string; sessionId?: undefined } | { userId?: undefined; sessionId: string };

/** A model whose label for a user changed after new events. */
export interface LabelChange extends Prediction {
  previousLabel: string;
}
