import { InjectQueue } from '@nestjs/bullmq';
import { Injectable } from '@nestjs/common';
import type { Queue } from 'bullmq';
import { newId } from '../ids/ids';
import { JOBS, QUEUES, type JobPayloads } from '../queue/queue-contract';

/**
 * What the domain announces to the outside world (webhooks today). Producers live in lower libs
 * (models, predictions) and must not know who listens, so the announcement is a job on its own
 * queue; libs/webhooks consumes it and fans it out to the organization's subscriptions.
 */
export interface DomainEventData {
  'prediction.updated': {
    userId: string;
    model: string;
    modelId: string;
    version: number;
    label: string;
    previousLabel: string;
    confidence: number;
  };
  'model.retrained': {
    modelId: string;
    model: string;
    version: number;
    /** false when the new version was kept as a rejected challenger. */
    promoted: boolean;
    auc: number;
    accuracy: number;
    rejectionReason: string | null;
  };
  'model.failed': { modelId: string; model: string; error: string };
  'drift.detected': { modelId: string; model: string; version: number; status: 'moderate' | 'high'; psi: number; delta: number };
}

export type DomainEventType = keyof DomainEventData;

export const DOMAIN_EVENT_TYPES = ['prediction.updated', 'model.retrained', 'model.failed', 'drift.detected'] as const satisfies readonly DomainEventType[];

export interface DomainEvent<T extends DomainEventType = DomainEventType> {
  /** `evt_…`, stable across redelivery: receivers dedupe on it. */
  id: string;
  type: T;
  organizationId: string;
  createdAt: string;
  data: DomainEventData[T];
}

@Injectable()
export class DomainEventsService {
  constructor(@InjectQueue(QUEUES.domainEvents) private readonly queue: Queue<JobPayloads[typeof JOBS.domainEvents.announce]>) {}

  /**
   * Announces an event after the change it describes has committed. `dedupeKey` (e.g. the version id)
   * makes a retried producer announce once: BullMQ ignores a second job with the same id.
   */
  async publish<T extends DomainEventType>(organizationId: string, type: T, data: DomainEventData[T], dedupeKey?: string): Promise<DomainEvent<T>> {
    const event: DomainEvent<T> = { id: newId('evt'), type, organizationId, createdAt: new Date().toISOString(), data };
    // BullMQ refuses custom job ids containing ':' (its key separator); ISO timestamps in keys have them.
    const jobId = dedupeKey ? `${type}/${dedupeKey}`.replaceAll(':', '_') : undefined;
    await this.queue.add(JOBS.domainEvents.announce, event, jobId ? { jobId } : {});
    return event;
  }
}
