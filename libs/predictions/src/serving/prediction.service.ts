import { performance } from 'node:perf_hooks';
import { Injectable } from '@nestjs/common';
import { Tensor } from 'onnxruntime-node';
import { type StoredUserId, UserEventsService, type UserEventWindow } from '@foresight/events';
import { computeFeatures, FEATURE_WINDOW_DAYS } from '@foresight/features';
import { ONNX_INPUT, ONNX_PROBABILITIES_OUTPUT } from '@foresight/models';
import { DAY_MS, notFound } from '@foresight/platform';
import { type LoggedPrediction, PredictionLogService } from '../log/prediction-log.service';
import type { LabelChange, Prediction, PredictionSubject, UserPredictions } from './prediction';
import { PredictionCacheService } from './prediction-cache.service';
import { PredictionMetricsService } from './prediction-metrics.service';
import { type ServingModel, ServingModelsService } from './serving-models.service';

/**
 * GET /v1/predict: the user's features now (the same definitions training used), one ONNX Runtime
 * run per serving model, every fresh answer logged. A repeat with nothing new comes from this
 * process's cache, checked against the user's activity revision.
 */
@Injectable()
export class PredictionService {
  constructor(
    private readonly servingModels: ServingModelsService,
    private readonly userEvents: UserEventsService,
    private readonly cache: PredictionCacheService,
    private readonly log: PredictionLogService,
    private readonly metrics: PredictionMetricsService,
  ) {}

  async predict(organizationId: string, subject: PredictionSubject): Promise<UserPredictions> {
    const now = Date.now();
    const userId = 'user' in subject ? subject.user : await this.userOfSession(organizationId, subject.sessionId);
    const result = (predictions: Prediction[]): UserPredictions => ({ user: userId, predictions });
    const models = await this.servingModels.forOrganization(organizationId);
    const fingerprint = (revision: string) => `${revision}|${models.map((m) => m.versionId).join(',')}`;

    // A repeat: one primary-key read tells whether anything of the user was stored since.
    if (this.cache.has(organizationId, userId)) {
      const revision = await this.userEvents.revision(organizationId, userId);
      const cached = revision === undefined ? undefined : this.cache.get(organizationId, userId, fingerprint(revision));
      if (cached) {
        for (const prediction of cached) this.metrics.cached(prediction.modelId);
        return result(cached);
      }
    }

    // The feature window: events older than it change no feature.
    const history = await this.userEvents.window(organizationId, userId, new Date(now - FEATURE_WINDOW_DAYS * DAY_MS), new Date(now));
    if (!history) throw notFound('user');
    if (models.length === 0) return result([]);
    const logged = await Promise.all(models.map((model) => this.infer(model, history, organizationId, userId, now)));
    this.log.record(logged);
    const predictions = logged.map((p) => ({ model: p.modelName, label: p.label, confidence: p.confidence, modelId: p.modelId, version: p.version }));
    if (history.revision !== null) this.cache.set(organizationId, userId, fingerprint(history.revision), predictions);
    return result(predictions);
  }

  /**
   * After new events: predicts again (logged like any served prediction) and returns the models whose
   * label differs from the user's previous logged prediction. A user never predicted before has no change.
   */
  async rescore(organizationId: string, userId: StoredUserId): Promise<LabelChange[]> {
    const previous = await this.log.latestLabels(organizationId, userId);
    const { predictions } = await this.predict(organizationId, { user: userId });
    return predictions.flatMap((p) => {
      const before = previous.get(p.modelId);
      return before !== undefined && before !== p.label ? [{ ...p, previousLabel: before }] : [];
    });
  }

  private async userOfSession(organizationId: string, sessionId: string): Promise<StoredUserId> {
    const userId = await this.userEvents.userOfSession(organizationId, sessionId);
    if (userId === undefined) throw notFound(`a user for session ${sessionId}`);
    return userId;
  }

  private async infer(model: ServingModel, history: UserEventWindow, organizationId: string, userId: StoredUserId, now: number): Promise<LoggedPrediction> {
    const features = computeFeatures(history.events, history, now, model.manifest);
    const started = performance.now();
    const output = await model.session.run({ [ONNX_INPUT]: new Tensor('float32', features, [1, features.length]) });
    const inferenceMs = performance.now() - started;
    this.metrics.inferred(model.modelId, inferenceMs);
    const positiveProbability = (output[ONNX_PROBABILITIES_OUTPUT].data as Float32Array)[1];
    // The ONNX graph is already calibrated; the label is the more probable class (ties go negative, as the graph's label does).
    const positive = positiveProbability > 0.5;
    return {
      organizationId,
      userId,
      modelId: model.modelId,
      modelName: model.name,
      versionId: model.versionId,
      version: model.version,
      label: model.labels[positive ? 1 : 0],
      positive,
      confidence: positive ? positiveProbability : 1 - positiveProbability,
      inferenceMs,
      predictedAt: new Date(now),
    };
  }
}
