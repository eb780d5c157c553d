import { Injectable } from '@nestjs/common';
import { type StoredUserId, UserEventsService, type UserEventWindow } from '@foresight/events';
import { computeFeaturesOfEach, FEATURE_WINDOW_DAYS } from '@foresight/features';
import { DAY_MS, notFound } from '@foresight/platform';
import { labelChanges } from '../log/latest-labels';
import { PredictionLogService } from '../log/prediction-log.service';
import { scoreUsers } from '../pipeline/scoring-pipeline';
import type { LabelChange, Prediction, PredictionSubject, UserPredictions } from './prediction';
import { PredictionCacheService } from './prediction-cache.service';
import { explainPrediction } from './prediction-explanation';
import { PredictionMetricsService } from './prediction-metrics.service';
import { ServingModelsService, type ServingSet } from './serving-models.service';

/**
 * GET /v1/predict: the user's features now (the same definitions training used), one ONNX Runtime
 * run per serving model, every fresh answer logged. A repeat with nothing new comes from this
 * process's cache, checked against the user's activity revision and the serving models as stored now.
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

  /** With `explain`, each prediction carries its explanation (GET /v1/predict?explain=true). */
  async predict(organizationId: string, subject: PredictionSubject, { explain = false } = {}): Promise<UserPredictions> {
    const now = Date.now();
    const userId = 'user' in subject ? subject.user : await this.userOfSession(organizationId, subject.sessionId);
    const result = (predictions: Prediction[]): UserPredictions => ({ user: userId, predictions });
    // Read at the same time as the user's revision or window: one more small query, no longer wait.
    const servingRead = this.servingModels.forOrganization(organizationId);

    // A repeat: one primary-key read tells whether anything of the user was stored since.
    if (this.cache.has(organizationId, userId)) {
      const [serving, revision] = await Promise.all([servingRead, this.userEvents.revision(organizationId, userId)]);
      const cached = revision === undefined ? undefined : this.fromCache(organizationId, userId, revision, serving, explain);
      if (cached) return result(cached);
    }

    const [serving, history] = await Promise.all([servingRead, this.userEvents.window(organizationId, userId, ...featureWindow(now))]);
    if (!history) throw notFound('user');
    const [predictions] = await this.inferFresh(organizationId, serving, [{ user: userId, history }], now, explain);
    return result(predictions);
  }

  /**
   * POST /v1/predict/batch: for each user, in the order given, what `predict` answers (undefined for a
   * user the organization has no event of). All histories in one round trip, one ONNX Runtime run per
   * model for the users not answered from the cache.
   */
  async predictMany(organizationId: string, users: readonly StoredUserId[]): Promise<Array<Prediction[] | undefined>> {
    const now = Date.now();
    const [serving, histories] = await Promise.all([
      this.servingModels.forOrganization(organizationId),
      this.userEvents.windows(organizationId, users, ...featureWindow(now)),
    ]);
    const answers = histories.map((history, i) =>
      history?.revision === undefined || history.revision === null ? undefined : this.fromCache(organizationId, users[i], history.revision, serving, false),
    );
    const fresh = users.flatMap((user, i) => {
      const history = histories[i];
      return history && !answers[i] ? [{ user, history, index: i }] : [];
    });
    const inferred = await this.inferFresh(organizationId, serving, fresh, now, false);
    fresh.forEach(({ index }, k) => (answers[index] = inferred[k]));
    return answers;
  }

  /**
   * After new events: predicts again (logged like any served prediction) and returns the models whose
   * label differs from the user's latest prediction logged before `eventsAt` (when the new events
   * asked for this). A retry after this call's log rows were written therefore finds the same changes,
   * and a prediction someone asked for in between does not hide one. A user never predicted before has no change.
   */
  async rescore(organizationId: string, userId: StoredUserId, eventsAt: Date): Promise<LabelChange[]> {
    const { models } = await this.servingModels.forOrganization(organizationId);
    const previous = await this.log.latestLabels(organizationId, [userId], models.map((model) => model.modelId), eventsAt);
    const { predictions } = await this.predict(organizationId, { user: userId });
    return labelChanges(predictions.map((prediction) => ({ ...prediction, userId })), previous);
  }

  private async userOfSession(organizationId: string, sessionId: string): Promise<StoredUserId> {
    const userId = await this.userEvents.userOfSession(organizationId, sessionId);
    if (userId === undefined) throw notFound(`a user for session ${sessionId}`);
    return userId;
  }

  private fromCache(organizationId: string, userId: StoredUserId, revision: string, serving: ServingSet, explain: boolean): Prediction[] | undefined {
    const cached = this.cache.get(organizationId, userId, fingerprint(revision, serving), explain);
    for (const prediction of cached ?? []) this.metrics.cached(prediction.modelId);
    return cached;
  }

  /**
   * Predicts for users with their histories through the scoring pipeline, every answer logged and
   * cached (with `explain`, explained from the very feature values the model read).
   */
  private async inferFresh(organizationId: string, serving: ServingSet, users: ReadonlyArray<UserHistory>, now: number, explain: boolean): Promise<Prediction[][]> {
    const { models } = serving;
    if (users.length === 0) return [];
    if (models.length === 0) return users.map(() => []);
    const { matrices, predictions: byModel } = await scoreUsers({ organizationId, models, users: users.map(({ user }) => user), now }, (i, manifests) =>
      computeFeaturesOfEach(users[i].history.events, users[i].history, now, manifests),
    );
    for (const logged of byModel) this.metrics.inferred(logged[0].modelId, logged[0].inferenceMs, logged.length);
    this.log.record(byModel.flat());
    return users.map(({ user, history }, i) => {
      const predictions = byModel.map((logged, m): Prediction => {
        const p = logged[i];
        const prediction: Prediction = { model: p.modelName, label: p.label, confidence: p.confidence, modelId: p.modelId, version: p.version };
        if (p.value) Object.assign(prediction, { value: p.value.value, interval: { p10: p.value.p10, p90: p.value.p90 } });
        if (p.dormant) prediction.dormant = true;
        if (!explain) return prediction;
        // A dormant user's answer is a rate, not the model's score: its log-odds are all base, nothing is owed to a feature.
        if (p.dormant) return { ...prediction, explanation: { base: logit(p.positive ? p.confidence : 1 - p.confidence), contributions: [] } };
        const { manifest } = models[m];
        const explainer = models[m].explainer();
        const d = manifest.names.length;
        return { ...prediction, explanation: explainer && explainPrediction(explainer, manifest.names, matrices[m].subarray(i * d, (i + 1) * d)) };
      });
      if (history.revision !== null) this.cache.set(organizationId, user, fingerprint(history.revision, serving), predictions);
      return predictions;
    });
  }
}

interface UserHistory {
  user: StoredUserId;
  history: UserEventWindow;
}

const logit = (p: number) => Math.log(p / (1 - p));

/** The feature window ending now: events older than it change no feature. */
function featureWindow(now: number): [Date, Date] {
  return [new Date(now - FEATURE_WINDOW_DAYS * DAY_MS), new Date(now)];
}

/** A cached answer holds while the user's revision and everything the serving models answer are the same. */
function fingerprint(revision: string, serving: ServingSet): string {
  return `${revision}|${serving.key}`;
}
