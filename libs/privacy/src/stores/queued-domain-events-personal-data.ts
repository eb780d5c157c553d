import { InjectQueue } from '@nestjs/bullmq';
import { Injectable } from '@nestjs/common';
import type { Job, JobType, Queue } from 'bullmq';
import { PersonalDataStoreProvider, QUEUES, type DomainEvent, type PersonalDataStore } from '@foresight/platform';

/** Every state a job can sit in Redis with its payload; completed and failed jobs keep theirs for a while too. */
const JOB_STATES: JobType[] = ['active', 'waiting', 'waiting-children', 'prioritized', 'delayed', 'completed', 'failed'];

/**
 * Domain events about one user (prediction.updated) waiting on, or kept by, the domain-events queue
 * in Redis. A job being processed cannot be removed; it is reported as remaining so the sweep
 * comes back after it finished.
 */
@Injectable()
@PersonalDataStoreProvider()
export class QueuedDomainEventsPersonalData implements PersonalDataStore {
  readonly name = 'queuedDomainEvents';
  readonly userIdColumns = [];

  constructor(@InjectQueue(QUEUES.domainEvents) private readonly queue: Queue<DomainEvent>) {}

  async export(organizationId: string, userId: string): Promise<unknown[]> {
    return (await this.jobsAbout(organizationId, userId)).map((job) => job.data);
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

  private async jobsAbout(organizationId: string, userId: string): Promise<Array<Job<DomainEvent>>> {
    const jobs = await this.queue.getJobs(JOB_STATES);
    return jobs.filter((job) => job?.data?.organizationId === organizationId && 'userId' in job.data.data && job.data.data.userId === userId);
  }
}
