import { InjectQueue } from '@nestjs/bullmq';
import { Injectable } from '@nestjs/common';
import type { Queue } from 'bullmq';
import { ModelsService } from '@foresight/models';
import { audienceRecomputeJob, type JobPayloads, JOBS, newId, notFound, QUEUES, scoringRunJob, type ScoringTrigger, SqlExecutor, type SqlRunner } from '@foresight/platform';
import {
  BEGIN_SCORING_RUN,
  CHECKPOINT_SCORING_RUN,
  COMPLETE_SCORING_RUN,
  FAIL_SCORING_RUN,
  RECORD_SCORING_RUN,
  type RunRow,
  SCORING_RUN,
  type ScoringRunState,
  SET_SCORING_RUN_TOTAL_ONCE,
} from './scoring-runs.sql';

export type { ScoringRunState } from './scoring-runs.sql';

type ScoreUsers = JobPayloads[typeof JOBS.scoring.scoreUsers];

/** A bulk scoring run as the CLI and the API show it. */
export interface ScoringRun {
  id: string;
  organizationId: string;
  modelIds: string[];
  trigger: ScoringTrigger;
  state: ScoringRunState;
  /** Users scored so far (each by every model of the run), earlier attempts included. */
  scored: number;
  /** Users active within the feature window when the run (first) started; null until then. */
  total: number | null;
  /** Labels that changed from the user's previous logged prediction (announced as prediction.updated). */
  changed: number;
  error: string | null;
  createdAt: Date;
  startedAt: Date | null;
  finishedAt: Date | null;
}

/** Where a run continues: after `lastUser` (user id order), with its counts so far. */
export interface ScoringCheckpoint {
  lastUser: string | null;
  scored: number;
  changed: number;
}

/**
 * The scoring_runs table (each run's state, counts and checkpoint) and the scoring queue's producers.
 * All on the primary: a run's state is read right after it is written (the answer to a start, a
 * worker continuing from its checkpoint).
 */
@Injectable()
export class ScoringRunsService {
  constructor(
    private readonly sql: SqlExecutor,
    private readonly models: ModelsService,
    @InjectQueue(QUEUES.scoring) private readonly queue: Queue<ScoreUsers>,
    @InjectQueue(QUEUES.predictions) private readonly predictionsQueue: Queue,
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
   * The worker takes the run up (first attempt or a retry): recorded as queued by its producer, or
   * now (a promotion queues the job only). Answers where to continue, or undefined when it is over.
   */
  async begin(runId: string, job: ScoreUsers): Promise<ScoringCheckpoint | undefined> {
    await this.record(runId, job);
    const row = await this.sql.first(BEGIN_SCORING_RUN, [runId, job.organizationId]);
    return row ? { lastUser: row.checkpoint_user_id, scored: row.scored, changed: row.changed } : undefined;
  }

  /** The run's total, set when it first starts: a resumed run keeps the first one it was given. */
  async setTotalOnce(runId: string, organizationId: string, total: number): Promise<number> {
    return (await this.sql.first(SET_SCORING_RUN_TOTAL_ONCE, [runId, organizationId, total]))?.total ?? total;
  }

  /** Inside the chunk's transaction (`tx`): the rows written with it and this move commit together. */
  async checkpoint(tx: SqlRunner, runId: string, organizationId: string, at: ScoringCheckpoint): Promise<void> {
    await tx.affected(CHECKPOINT_SCORING_RUN, [runId, organizationId, at.lastUser, at.scored, at.changed]);
  }

  /** Done: the checkpoint (a user id) is not kept past the run; the audiences of its models are recomputed from its predictions. */
  async complete(runId: string, organizationId: string): Promise<void> {
    await this.sql.affected(COMPLETE_SCORING_RUN, [runId, organizationId]);
    const audiences = audienceRecomputeJob({ organizationId, runId });
    await this.predictionsQueue.add(audiences.name, audiences.data, audiences.opts);
  }

  /** A failed attempt (retried by the queue while attempts remain; the checkpoint stays for it). */
  async fail(runId: string, organizationId: string, error: string, final: boolean): Promise<void> {
    await this.sql.affected(FAIL_SCORING_RUN, [runId, organizationId, error, final]);
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
    await this.sql.affected(RECORD_SCORING_RUN, [runId, job.organizationId, job.modelIds, job.trigger]);
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
