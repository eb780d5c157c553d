import { InjectQueue } from '@nestjs/bullmq';
import { Injectable } from '@nestjs/common';
import type { Job, JobType, Queue } from 'bullmq';
import {
  type DomainEvent,
  type JobPayloads,
  JOBS,
  type PersonalDataStore,
  PersonalDataStoreProvider,
  QUEUES,
  RedisAvailabilityService,
  type RedisClient,
  UserActivityFeedService,
} from '@foresight/platform';

/** Every state a job can sit in Redis with its payload; completed and failed jobs keep theirs for a while too. */
const JOB_STATES: JobType[] = ['active', 'waiting', 'waiting-children', 'prioritized', 'delayed', 'completed', 'failed'];

type Rescore = JobPayloads[typeof JOBS.userActivity.rescore];

/** Stream entries read per XRANGE call, and jobs per state per read, while looking for a user: small reads. */
const STREAM_PAGE = 200;
const JOB_PAGE = 100;

/**
 * How long one look through the queues may take in all. A whole queue's retained jobs and event
 * streams (thousands of entries) are read, which on a loaded Redis takes far longer than a request's
 * usual Redis step; an erasure is worth waiting for. Every read goes through the queue's own
 * connection, bounded by this deadline only: the request client's 250 ms command timeout failed the
 * whole erasure (503) on one slow page of the stream while the service caught up after a fault.
 */
const SCAN_DEADLINE_MS = 20_000;

/** A queue whose job payloads can name a user, and how to tell. */
interface UserBearingQueue {
  queue: Queue;
  names: (job: Job, organizationId: string, userId: string) => boolean;
}

/** An entry of a queue's BullMQ event stream (`bull:<queue>:events`). */
interface StreamEntry {
  queue: Queue;
  id: string;
}

/**
 * Job payloads naming one user in Redis: domain events about them (prediction.updated) and their
 * pending re-scoring. A job being processed cannot be removed; it is reported as remaining so the
 * sweep comes back after it finished. Also the entries of those queues' event streams that name the
 * user's jobs: they outlive the jobs (added, delayed, completed…), by the user's keyed-hash job id,
 * or by the reversible base64url id older releases used.
 */
@Injectable()
@PersonalDataStoreProvider()
export class QueuedJobsPersonalDataService implements PersonalDataStore {
  readonly name = 'queuedJobs';
  readonly userIdColumns = [];
  private readonly sources: UserBearingQueue[];

  constructor(
    @InjectQueue(QUEUES.domainEvents) domainEvents: Queue<DomainEvent>,
    @InjectQueue(QUEUES.userActivity) userActivity: Queue<Rescore>,
    private readonly redis: RedisAvailabilityService,
    private readonly activity: UserActivityFeedService,
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
    // After the jobs: removing a job adds a `removed` entry naming it.
    for (const { queue, id } of await this.streamEntriesAbout(organizationId, userId)) removed += await (await connectionOf(queue)).xdel(queue.keys.events, id);
    return removed;
  }

  async remaining(organizationId: string, userId: string): Promise<number> {
    return (await this.jobsAbout(organizationId, userId)).length + (await this.streamEntriesAbout(organizationId, userId)).length;
  }

  private async jobsAbout(organizationId: string, userId: string): Promise<Job[]> {
    return this.redis.within(
      'read the queued jobs',
      async () => {
        const found: Job[] = [];
        for (const { queue, names } of this.sources) {
          // A page is JOB_PAGE jobs of each state from `start` on; none left in any state ends the queue.
          for (let start = 0; ; start += JOB_PAGE) {
            const page = await queue.getJobs(JOB_STATES, start, start + JOB_PAGE - 1);
            if (page.length === 0) break;
            for (const job of page) if (job !== undefined && names(job, organizationId, userId)) found.push(job);
          }
        }
        return found;
      },
      SCAN_DEADLINE_MS,
    );
  }

  private async streamEntriesAbout(organizationId: string, userId: string): Promise<StreamEntry[]> {
    const jobIds = [this.activity.rescoreJobId(organizationId, userId), `${organizationId}/${Buffer.from(userId).toString('base64url')}`];
    // An older release's domain event job id embedded the re-scoring job's id it came from (`prediction.updated/<rescore id>-…`); an event's id is the job id now.
    const names = (value: string) => value === userId || jobIds.some((jobId) => value === jobId || value.includes(`/${jobId}-`));
    return this.redis.within(
      'read the queue event streams',
      async () => {
        const found: StreamEntry[] = [];
        for (const { queue } of this.sources) {
          const client = await connectionOf(queue);
          for (let start = '-'; ; ) {
            const page = await client.xrange(queue.keys.events, start, '+', 'COUNT', STREAM_PAGE);
            for (const [id, fields] of page) if (fields.some(names)) found.push({ queue, id });
            if (page.length < STREAM_PAGE) break;
            start = `(${page[page.length - 1][0]}`;
          }
        }
        return found;
      },
      SCAN_DEADLINE_MS,
    );
  }
}

/**
 * The queue's own Redis connection (no command timeout; BullMQ waits through reconnects). BullMQ's
 * client type lists only the commands it uses itself; the others, XRANGE and XDEL among them, are
 * forwarded to the ioredis client underneath.
 */
async function connectionOf(queue: Queue): Promise<RedisClient> {
  return (await queue.getBackend().client) as unknown as RedisClient;
}
