import { InjectQueue } from '@nestjs/bullmq';
import { Injectable } from '@nestjs/common';
import type { Queue } from 'bullmq';
import { SqlExecutor } from '../database/sql/sql-executor';
import type { SqlRunner } from '../database/sql/sql-runner';
import { derivedId, newId } from '../ids/ids';
import { contractJob, type JobPayloads, JOBS, QUEUES } from '../queue/queue-contract';
import { type DomainEvent, type DomainEventData, type DomainEventType, userOfEvent } from './domain-event';
import { STORE_PUBLISHED_EVENTS, STRANDED_PUBLISHED_EVENTS, TAKE_OUT_PUBLISHED_EVENT } from './domain-events.sql';

/** One event of a `publishAll`: its data, and the key that names it (see `publish`). */
export interface Announcement<T extends DomainEventType> {
  data: DomainEventData[T];
  dedupeKey?: string;
}

/** An event still in the outbox this long after its publish has no job left behind it (Redis lost it) or one far behind in the queue: queued again, it is fanned out once either way. */
const STRANDED_AFTER_SECONDS = 60;
const RESUME_AT_MOST = 1_000;

@Injectable()
export class DomainEventsService {
  constructor(
    @InjectQueue(QUEUES.domainEvents) private readonly queue: Queue<JobPayloads[typeof JOBS.domainEvents.announce]>,
    private readonly sql: SqlExecutor,
  ) {}

  /**
   * Announces an event after the change it describes has committed. `dedupeKey` (e.g. the version id)
   * makes a retried producer announce once: the event id is derived from the key and is the job's id,
   * so BullMQ ignores a second job while it keeps the first, and a webhook (one delivery per event id)
   * is delivered once even after BullMQ has trimmed the first job. The event is stored in PostgreSQL
   * (the outbox) before its job is queued, and stays there until the fan-out has stored its
   * deliveries: Redis losing the job loses nothing (`resumeStranded`).
   */
  async publish<T extends DomainEventType>(organizationId: string, type: T, data: DomainEventData[T], dedupeKey?: string): Promise<DomainEvent<T>> {
    const [event] = await this.publishAll(organizationId, type, [{ data, dedupeKey }]);
    return event;
  }

  /** `publish` of several events of one kind: one statement and one round trip to Redis for all. */
  async publishAll<T extends DomainEventType>(organizationId: string, type: T, announcements: ReadonlyArray<Announcement<T>>): Promise<Array<DomainEvent<T>>> {
    const events = await this.stage(this.sql, organizationId, type, announcements);
    await this.queueStaged(events);
    return events;
  }

  /**
   * The first half of `publishAll`, for a producer whose change commits in a transaction of its own:
   * the events are stored in the outbox through `tx`, so they commit (or roll back) with the change.
   * Answers them; once the transaction has committed, `queueStaged` queues their jobs. A process that
   * dies in between leaves them to `resumeStranded` (queued at most about STRANDED_AFTER_SECONDS
   * late, still once: the job id is the event id).
   */
  async stage<T extends DomainEventType>(tx: SqlRunner, organizationId: string, type: T, announcements: ReadonlyArray<Announcement<T>>): Promise<Array<DomainEvent<T>>> {
    const createdAt = new Date().toISOString();
    const events = announcements.map(({ data, dedupeKey }): DomainEvent<T> => ({
      id: dedupeKey === undefined ? newId('evt') : derivedId('evt', `${organizationId}/${type}/${dedupeKey}`),
      type,
      organizationId,
      createdAt,
      data,
    }));
    if (events.length === 0) return events;
    await tx.affected(STORE_PUBLISHED_EVENTS, [
      organizationId,
      events.map((event) => event.id),
      events.map((event) => userOfEvent(event)),
      events.map((event) => JSON.stringify(event)),
    ]);
    return events;
  }

  /** The second half of `publishAll`: the jobs of events `stage` stored, once their transaction has committed. */
  async queueStaged(events: readonly DomainEvent[]): Promise<void> {
    if (events.length > 0) await this.queue.addBulk(events.map((event) => contractJob(JOBS.domainEvents.announce, event, event.id)));
  }

  /**
   * In the fan-out's transaction: the event leaves the outbox with the deliveries made of it. Answers
   * the event as stored (an erasure may have taken a user out of an audience batch), or `published`
   * when no row is left (an earlier run of the same job took it out, or an earlier release queued it).
   */
  async fannedOut(tx: SqlRunner, published: DomainEvent): Promise<DomainEvent> {
    return (await tx.first(TAKE_OUT_PUBLISHED_EVENT, [published.organizationId, published.id]))?.event ?? published;
  }

  /**
   * Queues again every organization's events left in the outbox past STRANDED_AFTER_SECONDS: Redis
   * lost their jobs (restarted without its data), a producer died between its row and its job, or the
   * job failed for good. A job that will still run is kept as it is (same job id); a failed or
   * completed one (completed: a re-publish stored the row again after the fan-out) is removed first, or
   * its id would keep the new one out. The fan-out is keyed by event id and endpoint, so nothing is
   * delivered twice from this. Answers how many were looked at.
   */
  async resumeStranded(): Promise<number> {
    const stranded = (await this.sql.rows(STRANDED_PUBLISHED_EVENTS, [STRANDED_AFTER_SECONDS, RESUME_AT_MOST])).map((row) => row.event);
    for (const { id } of stranded) {
      const job = await this.queue.getJob(id);
      if (job && ((await job.isFailed()) || (await job.isCompleted()))) await job.remove();
    }
    await this.queueStaged(stranded);
    return stranded.length;
  }
}
