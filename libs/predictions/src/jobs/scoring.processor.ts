import { InjectQueue, Processor, WorkerHost } from '@nestjs/bullmq';
import { Inject, type OnApplicationBootstrap } from '@nestjs/common';
import type { Job, Queue } from 'bullmq';
import { APP_CONFIG, type AppConfig, dispatchJob, inBackground, type JobHandlers, JOBS, LOGGER, type Logger, QUEUES, SCHEDULE_TIME_ZONE } from '@foresight/platform';
import { BulkScoringService } from '../scoring/bulk-scoring.service';
import { ScoringRunsService } from '../scoring/scoring-runs.service';

/**
 * Translates the scoring queue's jobs to service calls. One job at a time: bulk scoring is a pool of
 * its own (one slot, a bounded chunk of users per step) beside the worker's other queues, and never
 * in the API process (a separate process and connection pool from the API's traffic).
 */
@Processor(QUEUES.scoring, { concurrency: 1, lockDuration: 20_000, stalledInterval: 10_000 })
export class ScoringProcessor extends WorkerHost implements OnApplicationBootstrap {
  private readonly handlers: JobHandlers<'scoring'> = {
    [JOBS.scoring.scoreUsers]: async (job) => {
      const runId = job.id as string;
      try {
        const summary = await this.scoring.score(runId, job.data, (progress) => job.updateProgress(progress));
        if (summary) this.logger.info({ runId, organizationId: job.data.organizationId, ...summary }, 'scoring run finished');
        return summary ?? { alreadyOver: true };
      } catch (error) {
        this.logger.warn({ err: error, runId, attempt: job.attemptsMade + 1 }, 'scoring run attempt failed');
        await this.runs.fail(runId, job.data.organizationId, error instanceof Error ? error.message : String(error), job.attemptsMade + 1 >= (job.opts.attempts ?? 1));
        throw error;
      }
    },
    [JOBS.scoring.scoreDaily]: async () => ({ runs: await this.runs.startDaily() }),
  };

  constructor(
    private readonly scoring: BulkScoringService,
    private readonly runs: ScoringRunsService,
    @InjectQueue(QUEUES.scoring) private readonly queue: Queue,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {
    super();
  }

  onApplicationBootstrap(): void {
    const daily = JOBS.scoring.scoreDaily;
    inBackground(this.logger, 'register the bulk scoring schedule', () =>
      this.queue.upsertJobScheduler(daily, { pattern: this.config.scoring.schedule, tz: SCHEDULE_TIME_ZONE }, { name: daily, data: {} }),
    );
  }

  process(job: Job): Promise<unknown> {
    return dispatchJob('scoring', this.handlers, job);
  }
}
