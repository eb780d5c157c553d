import { performance } from 'node:perf_hooks';
import type { StoredUserId } from '@foresight/events';
import type { FeatureManifest } from '@foresight/features';
import { DAYS_SINCE_LAST_EVENT, estimateValue, inPopulation, type VersionTarget } from '@foresight/models';
import type { LoggedPrediction } from '../log/prediction-rows';
import type { ServingModel } from '../serving/serving-models.service';

/** What the pipeline reads of a serving model: its version, labels, features and coalesced ONNX Runtime runs. */
export type PipelineModel = Pick<ServingModel, 'modelId' | 'name' | 'versionId' | 'version' | 'labels' | 'manifest' | 'runs' | 'target'>;

/** Users to score at `now` with an organization's models; `scoringRun` marks a bulk scoring run's rows. */
export interface PipelineInput {
  organizationId: string;
  models: readonly PipelineModel[];
  users: readonly StoredUserId[];
  now: number;
  scoringRun?: string;
}

/**
 * The `i`th user's feature vector for each manifest, in order (computeFeaturesOfEach over the user's
 * window), or undefined when the user has no event before `now` (every feature 0). Serving and bulk
 * scoring read windows differently (one user's from the events, a cursor's history), hence a callback.
 */
export type FeaturesOf = (i: number, manifests: readonly FeatureManifest[]) => readonly Float32Array[] | undefined;

export interface ScoredUsers {
  /** Per model, the users' feature vectors one row after the other (what the model read: explanations read them too). */
  matrices: Float32Array[];
  /** Per model, per user in the order given, the prediction as the log stores it. */
  predictions: LoggedPrediction[][];
  featuresMs: number;
  /** The models' runs, summed. */
  inferenceMs: number;
}

/**
 * Serving's and bulk scoring's one scoring pipeline: every model's features from one pass over each
 * user's window, one ONNX Runtime run per model over all the users (coalesced with concurrent
 * callers'), the label rule, and the rows the prediction log stores. Label changes are found from
 * these rows (labelChanges); where the rows are written, and when changes are announced, is each
 * caller's.
 */
export async function scoreUsers({ organizationId, models, users, now, scoringRun }: PipelineInput, featuresOf: FeaturesOf): Promise<ScoredUsers> {
  const started = performance.now();
  const manifests = models.map((model) => model.manifest);
  const matrices = models.map((model) => new Float32Array(users.length * model.manifest.names.length));
  for (let i = 0; i < users.length; i++) featuresOf(i, manifests)?.forEach((vector, m) => matrices[m].set(vector, i * vector.length));
  const featuresMs = performance.now() - started;
  let inferenceMs = 0;
  const predictedAt = new Date(now);
  const predictions = await Promise.all(
    models.map(async (model, m) => {
      const { probabilities, amounts, msPerRow } = await model.runs.run(matrices[m], users.length);
      inferenceMs += msPerRow * users.length;
      const { modelId, name: modelName, versionId, version, labels, target } = model;
      const kind = kindOf(target, model.manifest);
      return users.map((userId, i): LoggedPrediction => {
        const dormant = kind.dormantRate !== undefined && !kind.inPopulation(matrices[m][i * model.manifest.names.length + kind.recency]);
        const positiveProbability = dormant ? (kind.dormantRate as number) : probabilities[i * 2 + 1];
        // The ONNX graph is already calibrated; the label is the more probable class (ties go negative, as the graph's label does).
        const positive = positiveProbability > 0.5;
        const confidence = positive ? positiveProbability : 1 - positiveProbability;
        const row: LoggedPrediction = { organizationId, userId, modelId, modelName, versionId, version, label: labels[positive ? 1 : 0], positive, confidence, inferenceMs: msPerRow, predictedAt };
        if (scoringRun !== undefined) row.scoringRun = scoringRun;
        if (dormant) row.dormant = true;
        if (target?.kind === 'value' && amounts) row.value = estimateValue(positiveProbability, amounts[i], target.spread);
        return row;
      });
    }),
  );
  return { matrices, predictions, featuresMs, inferenceMs };
}

/**
 * An `inactivity` model predicts for users active within its activeDays (the population it was trained
 * on, decided on the same feature value); any other user is answered with the churn rate of such users
 * at the training cutoffs (VersionTarget), never with a score the model was not trained to give.
 */
function kindOf(target: VersionTarget | null, manifest: FeatureManifest): { dormantRate?: number; recency: number; inPopulation: (daysSinceLastEvent: number) => boolean } {
  const recency = manifest.names.indexOf(DAYS_SINCE_LAST_EVENT);
  if (target?.kind !== 'inactivity' || recency < 0) return { recency, inPopulation: () => true };
  const population = { kind: 'inactivity' as const, activeDays: target.activeDays };
  return { dormantRate: target.dormant.churnRate, recency, inPopulation: (days) => inPopulation(population, days) };
}
