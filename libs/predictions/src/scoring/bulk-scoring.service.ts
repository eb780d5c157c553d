import { performance } from 'node:perf_hooks';
import { Inject, Injectable } from '@nestjs/common';
import { Tensor } from 'onnxruntime-node';
import { DataSource } from 'typeorm';
import { type ActiveUser, type ActiveUsersRead, ActiveUsersService, type ActiveUsersStart, type StoredUserId, UserIdsService, UserWindowsService, windowToKeep } from '@foresight/events';
import { FEATURE_WINDOW_DAYS, featuresOfEachAt } from '@foresight/features';
import { ONNX_INPUT, ONNX_PROBABILITIES_OUTPUT } from '@foresight/models';
import { APP_CONFIG, type AppConfig, DAY_MS, DomainEventsService, type JobPayloads, type JOBS, SqlExecutor } from '@foresight/platform';
import { labelChanges, readLatestLabels } from '../log/latest-labels';
import { type LoggedPrediction, storePredictions } from '../log/prediction-rows';
import { type ServingModel, ServingModelsService } from '../serving/serving-models.service';
import { type ScoringCheckpoint, ScoringRunsService } from './scoring-runs.service';
import { UserChunks } from './user-chunks';

type ScoreUsers = JobPayloads[typeof JOBS.scoring.scoreUsers];

/** What a run did, and where this attempt's time went (milliseconds). */
export interface ScoringSummary {
  scored: number;
  total: number;
  changed: number;
  timings: ScoringTimings;
}

/**
 * Wall time from each stage's start to its end, summed over chunks. Reading, scoring and writing
 * overlap (a chunk is scored while the one before it is written and the cursor reads the next) on
 * one event loop, so an awaited stage (inference, write, webhooks) also counts the time the loop was
 * busy with the others: the stages add up to more than `totalMs`, and `readMs` is the one that
 * excludes its waits.
 */
export interface ScoringTimings {
  totalMs: number;
  /** Which users to read off the events, their first sighting and the run's total, before the cursors start. */
  setupMs: number;
  /** The cursors: fetching kept windows and the other users' events, not counting their waits for the chunk in flight. */
  readMs: number;
  featuresMs: number;
  inferenceMs: number;
  /** Previous labels, the rows' COPY and the checkpoint's commit. */
  writeMs: number;
  /** Windows kept in user_windows (each chunk's, and the inactive users' read off the events), for serving and the next runs to read instead of the events. */
  windowsMs: number;
  webhooksMs: number;
}

/** One model's answer for a chunk's user. */
interface ScoredUser {
  user: StoredUserId;
  modelId: string;
  label: string;
  positive: boolean;
  confidence: number;
  /** The user's share of the model's run over the chunk. */
  inferenceMs: number;
}

/**
 * Bulk scoring: every user active within the feature window, scored by some of an organization's
 * serving models in one pass (ActiveUsersService, in user id order: the windows kept by earlier runs
 * where the user did not change since, the events for everyone else). Per chunk of
 * SCORING_CHUNK_USERS users: features with the definitions serving and training use, one ONNX
 * Runtime run per model, label changes found against each user's previous latest label (one query, run beside the features and models);
 * then, once the chunk before it is committed, the changes announced as prediction.updated and the chunk's log rows (one COPY; one
 * INSERT on embedded PGlite) and the run's checkpoint committed together, so a killed run continues after its last committed
 * chunk and no user is scored twice. A chunk is scored while the one before it commits (UserChunks): this process computes
 * while Postgres writes.
 */
@Injectable()
export class BulkScoringService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly sql: SqlExecutor,
    private readonly activeUsers: ActiveUsersService,
    private readonly userWindows: UserWindowsService,
    private readonly userIds: UserIdsService,
    private readonly servingModels: ServingModelsService,
    private readonly runs: ScoringRunsService,
    private readonly domainEvents: DomainEventsService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** Runs (or continues) the run; `onProgress` hears of every committed chunk. Undefined when the run is already over. */
  async score(runId: string, job: ScoreUsers, onProgress: (progress: { scored: number; total: number }) => Promise<void>): Promise<ScoringSummary | undefined> {
    const checkpoint = await this.runs.begin(runId, job);
    if (!checkpoint) return undefined;
    const { organizationId } = job;
    const models = (await this.servingModels.forOrganization(organizationId)).models.filter((model) => job.modelIds.includes(model.modelId));
    const now = Date.now();
    const from = new Date(now - FEATURE_WINDOW_DAYS * DAY_MS);
    const until = new Date(now);
    const timings: ScoringTimings = { totalMs: 0, setupMs: 0, readMs: 0, featuresMs: 0, inferenceMs: 0, writeMs: 0, windowsMs: 0, webhooksMs: 0 };
    const started = performance.now();
    const at: ScoringCheckpoint = { ...checkpoint };
    let total = 0;
    const onStart = async ({ total: active, inactiveWindows }: ActiveUsersStart) => {
      total = await this.runs.setTotalOnce(runId, organizationId, active);
      timings.setupMs = performance.now() - started;
      const mark = performance.now();
      await this.userWindows.keep(inactiveWindows);
      timings.windowsMs += performance.now() - mark;
      await onProgress({ scored: at.scored, total });
    };

    if (models.length > 0) {
      const chunks = new UserChunks(this.config.scoring.chunkUsers, {
        // This process's part: features, models, label changes and the windows to keep.
        score: async (users: ActiveUser[]) => {
          // Postgres looks the previous labels up while this process computes the chunk's features and runs the models.
          const previousRead = readLatestLabels(this.sql, organizationId, users.map((u) => u.user), models.map((m) => m.modelId));
          previousRead.catch(() => undefined);
          const scored = await this.infer(models, users, now, timings);
          const mark = performance.now();
          const previous = await previousRead;
          timings.writeMs += performance.now() - mark;
          const windows = users.flatMap(({ user, history, revisionToKeep, firstSeenAt }) => windowToKeep(organizationId, user, history, revisionToKeep, firstSeenAt, from.getTime(), now) ?? []);
          return { lastUser: users[users.length - 1].user, userCount: users.length, scored, changes: labelChanges(scored, previous), windows };
        },
        // The database's part, chunk after chunk in cursor order: announcements, log rows and checkpoint, kept windows.
        commit: async ({ lastUser, userCount, scored, changes, windows }) => {
          let mark = performance.now();
          await this.announce(runId, organizationId, models, changes);
          timings.webhooksMs += performance.now() - mark;
          mark = performance.now();
          at.lastUser = lastUser;
          at.scored += userCount;
          at.changed += changes.length;
          const rows = logRows(runId, organizationId, models, scored, now);
          await this.dataSource.transaction(async (manager) => {
            await storePredictions(this.sql, manager, rows, this.config.embedded);
            await this.runs.checkpoint(this.sql.within(manager), runId, organizationId, at);
          });
          timings.writeMs += performance.now() - mark;
          mark = performance.now();
          await this.userWindows.keep(windows);
          timings.windowsMs += performance.now() - mark;
          await onProgress({ scored: at.scored, total });
        },
      });
      let cursorStarted = 0;
      let waitMs = 0;
      const onUser = async (user: ActiveUser) => {
        const handedOver = chunks.add(user);
        if (!handedOver) return;
        const waitStarted = performance.now();
        await handedOver;
        waitMs += performance.now() - waitStarted;
      };
      try {
        const afterUser = (checkpoint.lastUser as StoredUserId | null) ?? null;
        await this.readActiveUsers({ organizationId, from, until, afterUser }, async (active) => {
          await onStart(active);
          cursorStarted = performance.now();
        }, onUser);
      } catch (error) {
        await chunks.settled();
        throw error;
      }
      timings.readMs = performance.now() - cursorStarted - waitMs;
      await chunks.end();
    } else {
      // No serving model left (deleted since the run was asked for): nobody to score.
      await onStart({ total: 0, inactiveWindows: [] });
    }
    await this.runs.complete(runId, organizationId);
    timings.totalMs = performance.now() - started;
    return { scored: at.scored, total, changed: at.changed, timings };
  }

  /**
   * The active users after `afterUser`, handed to `onUser` one at a time (ActiveUsersService). On
   * PostgreSQL the cursors stream while chunks are scored and committed beside them. Embedded PGlite
   * runs one transaction at a time: while the cursors' is open, the run's total, a chunk's previous
   * labels, rows and checkpoint could never reach the database (the run, and the service with it,
   * would hang), so the users are read whole first. Embedded mode is for small organizations; its
   * memory is that of the window's events.
   */
  private async readActiveUsers(read: ActiveUsersRead, onStart: (start: ActiveUsersStart) => Promise<void>, onUser: (user: ActiveUser) => void | Promise<void>): Promise<void> {
    if (!this.config.embedded) return this.activeUsers.eachActiveUser(read, onStart, onUser);
    let start: ActiveUsersStart = { total: 0, inactiveWindows: [] };
    const users: ActiveUser[] = [];
    await this.activeUsers.eachActiveUser(read, async (started) => void (start = started), (user) => void users.push(user));
    await onStart(start);
    for (const user of users) await onUser(user);
  }

  /** Each model's answer for each user of the chunk: every model's features from one pass over each user's window, one ONNX Runtime run per model. */
  private async infer(models: readonly ServingModel[], users: readonly ActiveUser[], now: number, timings: ScoringTimings): Promise<ScoredUser[]> {
    const mark = performance.now();
    const manifests = models.map((model) => model.manifest);
    const matrices = models.map((model) => new Float32Array(users.length * model.manifest.names.length));
    users.forEach(({ history, firstSeenAt }, i) => featuresOfEachAt(history, now, manifests, firstSeenAt)?.forEach((vector, m) => matrices[m].set(vector, i * vector.length)));
    timings.featuresMs += performance.now() - mark;
    const byModel = await Promise.all(
      models.map(async (model, m) => {
        const started = performance.now();
        const output = await model.session.run({ [ONNX_INPUT]: new Tensor('float32', matrices[m], [users.length, model.manifest.names.length]) });
        const runMs = performance.now() - started;
        timings.inferenceMs += runMs;
        const probabilities = output[ONNX_PROBABILITIES_OUTPUT].data as Float32Array;
        return users.map(({ user }, i): ScoredUser => {
          // Calibrated in the graph; the more probable class wins, ties going negative as in serving.
          const positiveProbability = probabilities[i * 2 + 1];
          const positive = positiveProbability > 0.5;
          const confidence = positive ? positiveProbability : 1 - positiveProbability;
          return { user, modelId: model.modelId, label: model.labels[positive ? 1 : 0], positive, confidence, inferenceMs: runMs / users.length };
        });
      }),
    );
    return byModel.flat();
  }

  /** prediction.updated for each change, as after new events; the event's id is stable per run, so a repeated chunk announces once. */
  private async announce(runId: string, organizationId: string, models: readonly ServingModel[], changes: ReadonlyArray<ScoredUser & { previousLabel: string }>): Promise<void> {
    const byId = new Map(models.map((m) => [m.modelId, m]));
    await Promise.all(
      changes.map((change) => {
        const model = byId.get(change.modelId) as ServingModel;
        return this.domainEvents.publish(
          organizationId,
          'prediction.updated',
          { userId: change.user, model: model.name, modelId: model.modelId, version: model.version, label: change.label, previousLabel: change.previousLabel, confidence: change.confidence },
          // Named without the user id in clear (job ids are not erased with the user).
          `${runId}/${change.modelId}/${this.userIds.userHash(organizationId, change.user)}`,
        );
      }),
    );
  }
}

/** The chunk's prediction log rows, marked with the run. */
function logRows(runId: string, organizationId: string, models: readonly ServingModel[], scored: readonly ScoredUser[], now: number): LoggedPrediction[] {
  const byId = new Map(models.map((m) => [m.modelId, m]));
  const predictedAt = new Date(now);
  return scored.map((row) => {
    const model = byId.get(row.modelId) as ServingModel;
    const { modelId, name: modelName, versionId, version } = model;
    return { organizationId, userId: row.user, modelId, modelName, versionId, version, label: row.label, positive: row.positive, confidence: row.confidence, inferenceMs: row.inferenceMs, predictedAt, scoringRun: runId };
  });
}

