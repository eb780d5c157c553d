import { performance } from 'node:perf_hooks';
import { Inject, Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { type ActiveUser, type ActiveUsersRead, ActiveUsersService, type ActiveUsersStart, type StoredUserId, UserIdsService, UserWindowsService, windowToKeep } from '@foresight/events';
import { FEATURE_WINDOW_DAYS, featuresOfEachAt } from '@foresight/features';
import { type Announcement, APP_CONFIG, type AppConfig, DAY_MS, type DomainEvent, DomainEventsService, type JobPayloads, type JOBS, LOGGER, type Logger, SqlExecutor } from '@foresight/platform';
import { labelChanges, readLatestLabels } from '../log/latest-labels';
import { type LoggedPrediction, storePredictions } from '../log/prediction-rows';
import { scoreUsers } from '../pipeline/scoring-pipeline';
import { type ServingModel, ServingModelsService } from '../serving/serving-models.service';
import { type ClaimedShard, type ScoringRun, ScoringRunsService } from './scoring-runs.service';
import { UserChunks } from './user-chunks';

type ScoreShard = JobPayloads[typeof JOBS.scoring.scoreShard];

/** What a shard's attempt did, and where its time went (milliseconds). */
export interface ScoringSummary {
  /** Users this attempt scored (a resumed shard's earlier attempts not included). */
  scored: number;
  /** The shard's active users, all attempts. */
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
  /** Which users to read off the events, their first sighting and the shard's total, before the cursors start. */
  setupMs: number;
  /** The cursors: fetching kept windows and the other users' events, not counting their waits for the chunk in flight. */
  readMs: number;
  featuresMs: number;
  inferenceMs: number;
  /** Previous labels, the rows' COPY, the announcements' outbox rows (domain_event_outbox) and the checkpoint's commit. */
  writeMs: number;
  /** Windows kept in user_windows (each chunk's, and the inactive users' read off the events), for serving and the next runs to read instead of the events. */
  windowsMs: number;
  /** Queueing the jobs of the committed chunks' announcements (prediction.updated). */
  webhooksMs: number;
}

/** A chunk scored: its log rows, the label changes among them, and the windows worth keeping. */
interface ScoredChunk {
  lastUser: StoredUserId;
  userCount: number;
  rows: LoggedPrediction[];
  changes: Array<LoggedPrediction & { previousLabel: string }>;
  windows: Array<NonNullable<ReturnType<typeof windowToKeep>>>;
}

/**
 * Where a chunk ends sooner than SCORING_CHUNK_USERS: once its users' histories hold this many events.
 * Read events take about 260 bytes each on the heap, so the three chunks in flight stay within about
 * 8 MiB of histories however active the users are. A chunk lives from its read to the end of its
 * scoring, across the allocations of the chunks beside it; what outlives two scavenges of the 64 MiB
 * young generation is promoted and held in V8's old space until the next full collection. Runs of
 * 400 users with some 450 events each (V8's GC trace, 6 runs each) promoted 31-39 MiB a run at 20,000
 * events, 14-27 MiB at 10,000 and 14-20 MiB at 5,000. (At 50,000, a late run in a 30-minute soak
 * took the old space from ~40 to 108 MiB.) bench:score (10,000 users, one run each, same machine):
 * 4,092 users/s at 20,000, 3,947 at 10,000, 3,295 at 5,000: the smaller chunks' commits start to cost.
 */
const CHUNK_EVENTS = 10_000;

/**
 * Bulk scoring of one shard of a run: the run's users active within the feature window whose user
 * id hash falls in the shard's range, scored as of the run's cutoff by some of an organization's
 * serving models in one pass (ActiveUsersService, in user id order: the windows kept by earlier
 * runs where the user did not change since, the events for everyone else). Any number of workers
 * take a run's shards. Per chunk (SCORING_CHUNK_USERS users, fewer once their histories hold
 * CHUNK_EVENTS events): the scoring pipeline (features, one ONNX Runtime run per model, label rule,
 * log rows) and label changes found against each user's previous latest label (one query, run
 * beside the pipeline); then, once the chunk before it is committed, the chunk's log rows (one
 * COPY; one INSERT on embedded PGlite), its announcements (staged in the domain events' outbox,
 * under event ids derived from run, model and user) and the shard's checkpoint committed together,
 * fenced by the job's lock token, and only then the announcements' jobs queued. A killed shard
 * continues alone after its last committed chunk; what it committed and did not get to queue, the
 * outbox's resumer queues (DomainEventsService.resumeStranded, about a minute late): no user is
 * scored twice, no change announced twice or lost. A chunk is scored while the one before it
 * commits (UserChunks): this process computes while Postgres writes.
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
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  /**
   * Scores (or continues) the shard as the job holding `lockToken`; `onProgress` hears of every
   * committed chunk. Undefined when the shard is already completed. Throws LostShardLockError, with
   * nothing of the chunk kept, once another job has taken the shard over.
   */
  async scoreShard(job: ScoreShard, lockToken: string, onProgress: (progress: { scored: number; total: number }) => Promise<void>): Promise<ScoringSummary | undefined> {
    const shard = await this.runs.claim(job, lockToken);
    if (!shard) return undefined;
    const { organizationId } = shard;
    const models = (await this.servingModels.forOrganization(organizationId)).models.filter((model) => shard.modelIds.includes(model.modelId));
    const now = shard.cutoff.getTime();
    const from = new Date(now - FEATURE_WINDOW_DAYS * DAY_MS);
    const until = shard.cutoff;
    const timings: ScoringTimings = { totalMs: 0, setupMs: 0, readMs: 0, featuresMs: 0, inferenceMs: 0, writeMs: 0, windowsMs: 0, webhooksMs: 0 };
    const started = performance.now();
    const at = { scored: 0, changed: 0 };
    let total = 0;
    const onStart = async ({ total: active, inactiveWindows }: ActiveUsersStart) => {
      total = active;
      await this.runs.setTotalOnce(shard, active);
      timings.setupMs = performance.now() - started;
      const mark = performance.now();
      await this.userWindows.keep(inactiveWindows);
      timings.windowsMs += performance.now() - mark;
      await onProgress({ scored: at.scored, total });
    };

    if (models.length > 0) {
      const chunks = new UserChunks<ScoredChunk>({ users: this.config.scoring.chunkUsers, events: CHUNK_EVENTS }, {
        // This process's part: the scoring pipeline, label changes and the windows to keep.
        score: async (users: ActiveUser[]) => {
          const ids = users.map((u) => u.user);
          // Postgres looks the previous labels up while this process computes the chunk's features and runs the models.
          const previousRead = readLatestLabels(this.sql, organizationId, ids, models.map((m) => m.modelId));
          previousRead.catch(() => undefined);
          const scored = await scoreUsers({ organizationId, models, users: ids, now, scoringRun: shard.runId }, (i, manifests) =>
            featuresOfEachAt(users[i].history, now, manifests, users[i].firstSeenAt),
          );
          timings.featuresMs += scored.featuresMs;
          timings.inferenceMs += scored.inferenceMs;
          const rows = scored.predictions.flat();
          const mark = performance.now();
          const previous = await previousRead;
          timings.writeMs += performance.now() - mark;
          const windows = users.flatMap(({ user, history, revisionToKeep, firstSeenAt }) => windowToKeep(organizationId, user, history, revisionToKeep, firstSeenAt, from.getTime(), now) ?? []);
          return { lastUser: ids[ids.length - 1], userCount: users.length, rows, changes: labelChanges(rows, previous), windows };
        },
        // The database's part, chunk after chunk in cursor order: log rows, outbox and checkpoint, then the announcements' jobs and kept windows.
        commit: async ({ lastUser, userCount, rows, changes, windows }) => {
          let mark = performance.now();
          const announcements = changes.map((change) => this.announcement(shard, models, change));
          const staged = await this.dataSource.transaction(async (manager): Promise<DomainEvent[]> => {
            const tx = this.sql.within(manager);
            await storePredictions(this.sql, manager, rows, this.config.embedded);
            const events = await this.domainEvents.stage(tx, organizationId, 'prediction.updated', announcements);
            await this.runs.checkpoint(tx, shard, { lastUser, scored: userCount, changed: changes.length });
            return events;
          });
          at.scored += userCount;
          at.changed += changes.length;
          timings.writeMs += performance.now() - mark;
          mark = performance.now();
          await this.domainEvents.queueStaged(staged);
          timings.webhooksMs += performance.now() - mark;
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
        const read = { organizationId, from, until, hashFrom: shard.hashFrom, hashTo: shard.hashTo, afterUser: shard.afterUser as StoredUserId | null };
        await this.readActiveUsers(read, async (active) => {
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
    const completedRun = await this.runs.completeShard(shard);
    timings.totalMs = performance.now() - started;
    if (completedRun) this.runCompleted(completedRun);
    return { scored: at.scored, total, changed: at.changed, timings };
  }

  /** The one point where a run is known complete: its last shard has just committed its completion. */
  private runCompleted(run: ScoringRun): void {
    const seconds = run.startedAt && run.finishedAt ? (run.finishedAt.getTime() - run.startedAt.getTime()) / 1000 : null;
    this.logger.info({ runId: run.id, organizationId: run.organizationId, scored: run.scored, total: run.total, changed: run.changed, seconds }, 'scoring run completed');
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

  /** prediction.updated for a change, as after new events; named by run, model and user (the user by hash: keys are not erased with the user). */
  private announcement(shard: ClaimedShard, models: readonly ServingModel[], change: LoggedPrediction & { previousLabel: string }): Announcement<'prediction.updated'> {
    const model = models.find((m) => m.modelId === change.modelId) as ServingModel;
    return {
      dedupeKey: `${shard.runId}/${change.modelId}/${this.userIds.userHash(shard.organizationId, change.userId)}`,
      data: {
        userId: change.userId,
        model: model.name,
        modelId: model.modelId,
        version: model.version,
        label: change.label,
        previousLabel: change.previousLabel,
        confidence: change.confidence,
      },
    };
  }
}
