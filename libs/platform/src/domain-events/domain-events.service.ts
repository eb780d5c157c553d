import { InjectQueue } from '@nestjs/bullmq';
import { Injectable } from '@nestjs/common';
import type { Queue } from 'bullmq';
import { derivedId, newId } from '../ids/ids';
import { type JobPayloads, JOBS, QUEUES } from '../queue/queue-contract';
import type { DomainEvent, DomainEventData, DomainEventType } from './domain-event';

@Injectable()
export class DomainEventsService {
  constructor(@InjectQueue(QUEUES.domainEvents) private readonly queue: Queue<JobPayloads[typeof JOBS.domainEvents.announce]>) {}

  /**
   * Announces an event after the change it describes has committed. `dedupeKey` (e.g. the version id)
   * makes a retried producer announce once: BullMQ ignores a second job with the same id while it
   * keeps the first, and the event id is derived from the key, so a webhook (one delivery per event
   * id) is delivered once even after BullMQ has trimmed the first job.
   */
  async publish<T extends DomainEventType>(organizationId: string, type: T, data: DomainEventData[T], dedupeKey?: string): Promise<DomainEvent<T>> {
    const id = dedupeKey === undefined ? newId('evt') : derivedId('evt', `${organizationId}/${type}/${dedupeKey}`);
    const event: DomainEvent<T> = { id, type, organizationId, createdAt: new Date().toISOString(), data };
    // BullMQ refuses custom job ids containing ':' (its key separator); ISO timestamps in keys have them.
    const jobId = dedupeKey ? `${type}/${dedupeKey}`.replaceAll(':', '_') : undefined;
    await this.queue.add(JOBS.domainEvents.announce, event, jobId ? { jobId } : {});
    return event;
  }
}
