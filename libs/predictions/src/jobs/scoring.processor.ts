import { InjectQueue, OnWorkerEvent, Processor, WorkerHost } from '@nestjs/bullmq';
import { Inject, type OnApplicationBootstrap } from '@nestjs/common';
import type { Job, Queue } from 'bullmq';
import {
  APP_CONFIG,
  type AppConfig,
  BackgroundWork,
  dispatchJob,
  isFinalFailure,
  type JobHandlers,
  type JobPayloads,
  JOBS,
  LOGGER,
  type Logger,
  QUEUES,
  SCHEDULE_TIME_ZONE,
  SCORING_SHARD_ATTEMPTS,
} from '@foresight/platform';
import { BulkScoringService } from '../scoring/bulk-scoring.service';
import { LostShardLockError, ScoringRunsService } from '../scoring/scoring-runs.service';

type ScoreShard = JobPayloads[typeof JOBS.scoring.scoreShard];

/**
 * Translates the scoring queue's jobs to service calls. A run's job splits it into shard jobs, which
 * any worker takes, one at a time per worker: bulk scoring is a pool of its own (one slot, a bounded
 * chunk of users per step) beside the worker's other queues, and never in the API process (a
 * separate process and connection pool from the API's traffic). A shard's writes are fenced by the
 * job's lock token: after a takeover, the worker that lost the lock writes nothing more. A shard may
 * stall (its worker killed) as often as it may fail: BullMQ's default of one stall failed a shard for
 * good when the worker that took it over died too.
 */
@Processor(QUEUES.scoring, { concurrency: 1, lockDuration: 20_000, stalledInterval: 10_000, maxStalledCount: SCORING_SHARD_ATTEMPTS })
export class ScoringProcessor extends WorkerHost implements OnApplicationBootstrap {
  private readonly handlers: JobHandlers<'scoring'> = {
    [JOBS.scoring.scoreUsers]: async (job) => {
      const runId = job.id as string;
      try {
        const shards = await this.runs.split(runId, job.data);
        return shards === undefined ? { alreadyOver: true } : { shards };
      } catch (error) {
        this.logger.warn({ err: error, runId, attempt: job.attemptsMade + 1 }, 'scoring run split failed');
        await this.runs.fail(job.data.organizationId, runId, messageOf(error), job.attemptsMade + 1 >= (job.opts.attempts ?? 1));
        throw error;
      }
    },
    [JOBS.scoring.scoreShard]: async (job, token) => {
      const { organizationId, runId, shard } = job.data;
      if (token === undefined) throw new Error(`scoring run ${runId} shard ${shard}: no lock token to fence its writes with`);
      try {
        const summary = await this.scoring.scoreShard(job.data, token, (progress) => job.updateProgress(progress));
        if (summary) this.logger.info({ runId, organizationId, shard, ...summary }, 'scoring shard finished');
        return summary ?? { alreadyOver: true };
      } catch (error) {
        // The shard's new holder reports for it; this attempt's failure is no failure of the run.
        if (error instanceof LostShardLockError) throw error;
        this.logger.warn({ err: error, runId, shard, attempt: job.attemptsMade + 1 }, 'scoring shard attempt failed');
        await this.runs.fail(organizationId, runId, messageOf(error), job.attemptsMade + 1 >= (job.opts.attempts ?? 1), shard);
        throw error;
      }
    },
    [JOBS.scoring.scoreDaily]: async () => ({ runs: await this.runs.startDaily() }),
  };

  constructor(
    private readonly scoring: BulkScoringService,
    private readonly runs: ScoringRunsService,
    @InjectQueue(QUEUES.scoring) private readonly queue: Queue,
    private readonly background: BackgroundWork,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {
    super();
  }

  onApplicationBootstrap(): void {
    const daily = JOBS.scoring.scoreDaily;
    this.background.keepJobSchedulers(this.queue, 'daily scoring', async () => [{ id: daily, repeat: { pattern: this.config.scoring.schedule, tz: SCHEDULE_TIME_ZONE }, template: { name: daily, data: {} } }]);
    this.background.repeat('queue again the jobs of unfinished scoring runs', () => this.runs.resumeUnfinished());
  }

  process(job: Job, token?: string): Promise<unknown> {
    return dispatchJob('scoring', this.handlers, job, token);
  }

  /** A shard whose workers kept dying (stalled past maxStalledCount) fails the run, as a shard failing in its handler does. */
  @OnWorkerEvent('failed')
  async onFailed(job: Job | undefined, error: Error): Promise<void> {
    if (!isShardJob(job) || !isFinalFailure(job, error) || error instanceof LostShardLockError) return;
    await this.runs.fail(job.data.organizationId, job.data.runId, error.message, true, job.data.shard);
  }
}

function isShardJob(job: Job | undefined): job is Job<ScoreShard> {
  return job?.name === JOBS.scoring.scoreShard;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
