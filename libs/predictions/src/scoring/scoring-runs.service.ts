import { InjectQueue } from '@nestjs/bullmq';
import { Inject, Injectable } from '@nestjs/common';
import type { Queue } from 'bullmq';
import { ActiveUsersService, USER_HASHES } from '@foresight/events';
import { ModelsService } from '@foresight/models';
import {
  APP_CONFIG,
  type AppConfig,
  audienceRecomputeJob,
  type JobPayloads,
  JOBS,
  newId,
  notFound,
  QUEUES,
  scoringRunJob,
  scoringShardJob,
  type ScoringTrigger,
  SqlExecutor,
  type SqlRunner,
} from '@foresight/platform';
import {
  BEGIN_SCORING_RUN,
  CHECKPOINT_SCORING_SHARD,
  CLAIM_SCORING_SHARD,
  COMPLETE_SCORING_RUN,
  COMPLETE_SCORING_SHARD,
  COUNT_SCORING_RUN,
  CREATE_SCORING_SHARDS,
  FAIL_SCORING_RUN,
  LOCK_SCORING_RUN,
  OPEN_SCORING_SHARDS,
  RECORD_SCORING_RUN,
  type RunRow,
  SCORING_RUN,
  type ScoringRunState,
  SET_SCORING_SHARD_TOTAL_ONCE,
  UNFINISHED_SCORING_RUNS,
} from './scoring-runs.sql';

export type { ScoringRunState } from './scoring-runs.sql';

type ScoreUsers = JobPayloads[typeof JOBS.scoring.scoreUsers];
type ScoreShard = JobPayloads[typeof JOBS.scoring.scoreShard];

/** A bulk scoring run as the CLI and the API show it. */
export interface ScoringRun {
  id: string;
  organizationId: string;
  modelIds: string[];
  trigger: ScoringTrigger;
  state: ScoringRunState;
  /** Users scored so far (each by every model of the run), earlier attempts included. */
  scored: number;
  /** Users active within the feature window of the shards started so far; null until one has. */
  total: number | null;
  /** Labels that changed from the user's previous logged prediction (announced as prediction.updated). */
  changed: number;
  error: string | null;
  createdAt: Date;
  startedAt: Date | null;
  finishedAt: Date | null;
}

/** A shard as a job holds it: which users (a range of hashtext(user id)), after which user, as of when, with which models. */
export interface ClaimedShard extends ScoreShard {
  /** The lock token of the job that claimed it: every write of the shard is fenced by it. */
  lockToken: string;
  hashFrom: number;
  hashTo: number;
  afterUser: string | null;
  cutoff: Date;
  modelIds: string[];
}

/** What a chunk adds to its shard's (and run's) counts, and where the shard continues after it. */
export interface ShardProgress {
  lastUser: string;
  scored: number;
  changed: number;
}

/** A shard's write refused: another job holds the shard now (this one lost its lock). Nothing of the write was kept. */
export class LostShardLockError extends Error {
  constructor(shard: ScoreShard) {
    super(`scoring run ${shard.runId} shard ${shard.shard}: taken over by another worker; this attempt's write is refused`);
  }
}

/** A run recorded this long ago and not over has its jobs queued again (a start in progress is left alone). */
const RESUME_AFTER_SECONDS = 60;
const RESUME_AT_MOST = 100;

/** Shards for a run over an organization of `users`: one per `shardUsers` of them, at least one, at most `maxShards`. */
export function shardCount(users: number, { shards: maxShards, shardUsers }: AppConfig['scoring']): number {
  return Math.min(maxShards, Math.max(1, Math.ceil(users / shardUsers)));
}

/** USER_HASHES cut into `shards` consecutive ranges of nearly equal width. */
export function shardRanges(shards: number): { hashFrom: number[]; hashTo: number[] } {
  const span = USER_HASHES.hashTo - USER_HASHES.hashFrom + 1;
  const start = (k: number) => USER_HASHES.hashFrom + Math.floor((k * span) / shards);
  const hashFrom = Array.from({ length: shards }, (_, k) => start(k));
  return { hashFrom, hashTo: hashFrom.map((_, k) => start(k + 1) - 1) };
}

/**
 * The scoring_runs and scoring_run_shards tables (each run's state and counts, each shard's
 * checkpoint and holder) and the scoring queue's producers. A run is split into shards, each a job of
 * its own that any worker takes; the shard that completes last completes the run. All on the
 * primary: a run's state is read right after it is written (the answer to a start, a worker
 * continuing from its checkpoint).
 */
@Injectable()
export class ScoringRunsService {
  constructor(
    private readonly sql: SqlExecutor,
    private readonly models: ModelsService,
    private readonly activeUsers: ActiveUsersService,
    @InjectQueue(QUEUES.scoring) private readonly queue: Queue<ScoreUsers | ScoreShard>,
    @InjectQueue(QUEUES.predictions) private readonly predictionsQueue: Queue,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** A run of the given models of the organization (each must serve a version), queued for the worker: the CLI's `model score` and POST /v1/models/{id}/score. */
  async startManual(organizationId: string, modelIds: readonly string[]): Promise<ScoringRun> {
    const serving = new Set((await this.models.servingVersions(organizationId)).map((ref) => ref.modelId));
    for (const modelId of modelIds) {
      // Another organization's model, an unknown one and one without a serving version look alike.
      if (!serving.has(modelId)) throw notFound(`a model ${modelId} serving a version`);
    }
    return this.start(newId('scr'), { organizationId, modelIds: [...new Set(modelIds)], trigger: 'manual' });
  }

  /** The daily run of every organization with serving models: one run each, over all of them (one pass over its events). */
  async startDaily(now = new Date()): Promise<number> {
    const byOrganization = new Map<string, string[]>();
    for (const { model } of await this.models.servingInAllOrganizations()) {
      byOrganization.set(model.organizationId, [...(byOrganization.get(model.organizationId) ?? []), model.id]);
    }
    const day = now.toISOString().slice(0, 10);
    for (const [organizationId, modelIds] of byOrganization) await this.start(`scr_daily_${organizationId}_${day}`, { organizationId, modelIds, trigger: 'daily' });
    return byOrganization.size;
  }

  /** The organization's run; 404 for another organization's or an unknown one. */
  async get(organizationId: string, runId: string): Promise<ScoringRun> {
    const row = await this.sql.first(SCORING_RUN, [organizationId, runId]);
    if (!row) throw notFound(`scoring run ${runId}`);
    return runOf(row);
  }

  /**
   * Queues again the jobs of every run not over that was recorded over a minute ago: the run's own
   * job (it splits the run, or finds it split) and its open shards' jobs. A job can be gone while its
   * run waits: Redis restarted without its data, or the producer died between recording the run and
   * queueing it. Jobs are named by run and shard, so one Redis still holds is not queued twice, and a
   * split or a shard of a run over does nothing. Answers how many runs were looked at.
   */
  async resumeUnfinished(): Promise<number> {
    const runs = await this.sql.rows(UNFINISHED_SCORING_RUNS, [RESUME_AFTER_SECONDS, RESUME_AT_MOST]);
    for (const run of runs) {
      const queued = scoringRunJob({ organizationId: run.organization_id, modelIds: run.model_ids, trigger: run.trigger }, run.id);
      await this.queue.add(queued.name, queued.data, queued.opts);
      const open = await this.sql.rows(OPEN_SCORING_SHARDS, [run.organization_id, run.id]);
      await this.queue.addBulk(open.map(({ shard }) => scoringShardJob({ organizationId: run.organization_id, runId: run.id, shard })));
    }
    return runs.length;
  }

  /**
   * The worker takes the run up (first attempt or a retry; recorded as queued by its producer, or now:
   * a promotion queues the job only): fixes its cutoff, makes its shards (one per SCORING_SHARD_USERS
   * users of the organization, up to SCORING_SHARDS) unless an earlier attempt did, and queues those
   * not completed (each once: shard jobs are named by run and shard). Answers
   * how many were queued, or undefined when the run is over.
   */
  async split(runId: string, job: ScoreUsers): Promise<number | undefined> {
    await this.record(runId, job);
    if (!(await this.sql.first(BEGIN_SCORING_RUN, [job.organizationId, runId]))) return undefined;
    const { hashFrom, hashTo } = shardRanges(shardCount(await this.activeUsers.usersOf(job.organizationId), this.config.scoring));
    await this.sql.affected(CREATE_SCORING_SHARDS, [job.organizationId, runId, hashFrom, hashTo]);
    const open = await this.sql.rows(OPEN_SCORING_SHARDS, [job.organizationId, runId]);
    await this.queue.addBulk(open.map(({ shard }) => scoringShardJob({ organizationId: job.organizationId, runId, shard })));
    return open.length;
  }

  /** The job holding `lockToken` takes the shard over (see CLAIM_SCORING_SHARD); undefined when it is completed. */
  async claim(shard: ScoreShard, lockToken: string): Promise<ClaimedShard | undefined> {
    const row = await this.sql.first(CLAIM_SCORING_SHARD, [shard.organizationId, shard.runId, shard.shard, lockToken]);
    if (!row) return undefined;
    return { ...shard, lockToken, hashFrom: row.hash_from, hashTo: row.hash_to, afterUser: row.checkpoint_user_id, cutoff: row.cutoff, modelIds: row.model_ids };
  }

  /** The shard's total, set when it first starts (a resumed shard keeps the first), added to the run's. */
  async setTotalOnce(shard: ClaimedShard, total: number): Promise<void> {
    await this.sql.affected(SET_SCORING_SHARD_TOTAL_ONCE, [shard.organizationId, shard.runId, shard.shard, shard.lockToken, total]);
  }

  /** Inside the chunk's transaction (`tx`): the rows written with it and this move commit together, or not at all when the shard has another holder. */
  async checkpoint(tx: SqlRunner, shard: ClaimedShard, progress: ShardProgress): Promise<void> {
    const { organizationId, runId } = shard;
    const moved = await tx.affected(CHECKPOINT_SCORING_SHARD, [organizationId, runId, shard.shard, shard.lockToken, progress.lastUser, progress.scored, progress.changed]);
    if (moved === 0) throw new LostShardLockError(shard);
    await tx.affected(COUNT_SCORING_RUN, [organizationId, runId, progress.scored, progress.changed]);
  }

  /**
   * The shard is done (fenced, as its checkpoints), and the run with it when every other shard is:
   * answers the run when this call completed it (for exactly one shard of the run), and then queues
   * the recomputation of the audiences of its models (one job per run, so a repeat queues nothing).
   */
  async completeShard(shard: ClaimedShard): Promise<ScoringRun | undefined> {
    const { organizationId, runId } = shard;
    const run = await this.sql.transaction(async (tx) => {
      if ((await tx.affected(COMPLETE_SCORING_SHARD, [organizationId, runId, shard.shard, shard.lockToken])) === 0) throw new LostShardLockError(shard);
      // Shards completing at once take turns: the last one's check below sees every other's completion committed.
      await tx.first(LOCK_SCORING_RUN, [organizationId, runId]);
      const completed = await tx.first(COMPLETE_SCORING_RUN, [organizationId, runId]);
      return completed && runOf(completed);
    });
    if (run) {
      const audiences = audienceRecomputeJob({ organizationId, runId });
      await this.predictionsQueue.add(audiences.name, audiences.data, audiences.opts);
    }
    return run;
  }

  /** A failed attempt of the run's split or of one of its shards (retried by the queue while attempts remain; the checkpoint stays for it). */
  async fail(organizationId: string, runId: string, error: string, final: boolean, shard: number | null = null): Promise<void> {
    await this.sql.affected(FAIL_SCORING_RUN, [organizationId, runId, error, final, shard]);
  }

  private async start(runId: string, job: ScoreUsers): Promise<ScoringRun> {
    await this.record(runId, job);
    // As recorded before the worker can take it up: the answer always says `queued`.
    const run = await this.get(job.organizationId, runId);
    const queued = scoringRunJob(job, runId);
    await this.queue.add(queued.name, queued.data, queued.opts);
    return run;
  }

  private async record(runId: string, job: ScoreUsers): Promise<void> {
    await this.sql.affected(RECORD_SCORING_RUN, [job.organizationId, runId, job.modelIds, job.trigger]);
  }
}

function runOf(row: RunRow): ScoringRun {
  return {
    id: row.id,
    organizationId: row.organization_id,
    modelIds: row.model_ids,
    trigger: row.trigger,
    state: row.state,
    scored: row.scored,
    total: row.total,
    changed: row.changed,
    error: row.error,
    createdAt: row.created_at,
    startedAt: row.started_at,
    finishedAt: row.finished_at,
  };
}
