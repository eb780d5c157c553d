import { InjectQueue } from '@nestjs/bullmq';
import { Injectable } from '@nestjs/common';
import type { Job, JobType, Queue } from 'bullmq';
import { JOBS, PersonalDataStoreProvider, QUEUES, RedisAvailability, type DomainEvent, type JobPayloads, type PersonalDataStore } from '@foresight/platform';

/** Every state a job can sit in Redis with its payload; completed and failed jobs keep theirs for a while too. */
const JOB_STATES: JobType[] = ['active', 'waiting', 'waiting-children', 'prioritized', 'delayed', 'completed', 'failed'];

type Rescore = JobPayloads[typeof JOBS.userActivity.rescore];

/** A queue whose job payloads can name a user, and how to tell. */
interface UserBearingQueue {
  queue: Queue;
  names(job: Job, organizationId: string, userId: string): boolean;
}

/**
 * Job payloads naming one user in Redis: domain events about them (prediction.updated) and their
 * pending re-scoring. A job being processed cannot be removed; it is reported as remaining so the
 * sweep comes back after it finished.
 */
@Injectable()
@PersonalDataStoreProvider()
export class QueuedJobsPersonalData implements PersonalDataStore {
  readonly name = 'queuedJobs';
  readonly userIdColumns = [];
  private readonly sources: UserBearingQueue[];

  constructor(
    @InjectQueue(QUEUES.domainEvents) domainEvents: Queue<DomainEvent>,
    @InjectQueue(QUEUES.userActivity) userActivity: Queue<Rescore>,
    private readonly redis: RedisAvailability,
  ) {
    this.sources = [
      {
        queue: domainEvents,
        names: (job: Job<DomainEvent>, organizationId, userId) =>
          job.data?.organizationId === organizationId && 'userId' in job.data.data && job.data.data.userId === userId,
      },
      { queue: userActivity, names: (job: Job<Rescore>, organizationId, userId) => job.data?.organizationId === organizationId && job.data.userId === userId },
    ];
  }

  async export(organizationId: string, userId: string): Promise<unknown[]> {
    return (await this.jobsAbout(organizationId, userId)).map((job) => ({ queue: job.queueName, name: job.name, data: job.data as unknown }));
  }

  async erase(organizationId: string, userId: string): Promise<number> {
    let removed = 0;
    for (const job of await this.jobsAbout(organizationId, userId)) {
      // Refused for a job a worker holds; remaining() keeps counting it until it can go.
      const gone = await job.remove().then(() => true, () => false);
      if (gone) removed++;
    }
    return removed;
  }

  async remaining(organizationId: string, userId: string): Promise<number> {
    return (await this.jobsAbout(organizationId, userId)).length;
  }

  private async jobsAbout(organizationId: string, userId: string): Promise<Job[]> {
    const found = await this.redis.within('read the queued jobs', () =>
      Promise.all(
        this.sources.map(async ({ queue, names }) => (await queue.getJobs(JOB_STATES)).filter((job) => job !== undefined && names(job, organizationId, userId))),
      ),
    );
    return found.flat();
  }
}
