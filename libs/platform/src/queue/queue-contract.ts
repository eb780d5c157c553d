import type { DefaultJobOptions } from 'bullmq';
import type { DomainEvent } from '../domain-events/domain-events';
// Installs BullMQ classes that report connection errors once; every queue registration imports this contract.
import './logged-bullmq';

/**
 * The queue contract: every queue name, job name and payload type, and the default job options.
 * Producers and processors import from here only, so the two sides cannot drift apart.
 * One queue per lib with background work, so a processor never receives another domain's jobs.
 */
export const QUEUES = {
  events: 'events',
  training: 'training',
  domainEvents: 'domain-events',
  webhooks: 'webhooks',
  predictions: 'predictions',
  userActivity: 'user-activity',
  privacy: 'privacy',
} as const;

export type QueueName = (typeof QUEUES)[keyof typeof QUEUES];

export const JOBS = {
  events: {
    /** Creates the coming months' event partitions (and moves early rows out of the default one). */
    ensurePartitions: 'events.ensure-partitions',
    /** Re-seals event properties and context not under the current encryption key (`cli keys rotate`). */
    reencrypt: 'events.reencrypt',
  },
  training: {
    /** Trains a new version of one model; the job id is the model id, so one run per model at a time. */
    train: 'models.train',
    /** Fired by a model's cron `schedule` (a BullMQ job scheduler per model): starts a run like POST /v1/models/retrain. */
    scheduledRetrain: 'models.scheduled-retrain',
  },
  predictions: {
    /** Creates the coming months' prediction log partitions. */
    ensurePartitions: 'predictions.ensure-partitions',
    /** Matches matured predictions with outcomes and snapshots accuracy, latency, throughput and drift of every serving model. */
    monitor: 'predictions.monitor',
  },
  userActivity: {
    /** A user got new events: re-score them and announce changed labels; the job id is per user (debounce). */
    rescore: 'user-activity.rescore',
  },
  domainEvents: {
    /** One domain event (model retrained, drift detected, …) to fan out to its listeners. */
    announce: 'domain-events.announce',
  },
  webhooks: {
    /** One delivery of one event to one endpoint; the job id is the delivery id. */
    deliver: 'webhooks.deliver',
  },
  privacy: {
    /** Re-checks every personal-data store for an erased user until none holds anything; the job id is the erasure id. */
    sweepErasure: 'privacy.sweep-erasure',
    /** Daily: deletes events and predictions older than each organization's retention. */
    retention: 'privacy.retention',
  },
} as const;

export interface JobPayloads {
  [JOBS.events.ensurePartitions]: { monthsAhead: number };
  [JOBS.events.reencrypt]: { requestedAt: string };
  [JOBS.training.train]: { organizationId: string; modelId: string; startedAt: string };
  [JOBS.training.scheduledRetrain]: { organizationId: string; modelId: string };
  [JOBS.predictions.ensurePartitions]: { monthsAhead: number };
  [JOBS.predictions.monitor]: Record<string, never>;
  [JOBS.userActivity.rescore]: { organizationId: string; userId: string };
  [JOBS.domainEvents.announce]: DomainEvent;
  /** retryDelaysMs is the schedule in force when the delivery was queued (read by the worker's backoff strategy). */
  [JOBS.webhooks.deliver]: { deliveryId: string; webhookId: string; retryDelaysMs: number[] };
  /** The user id travels only sealed with the Encryptor (bound to the erasure id); the job is removed once it confirms. */
  [JOBS.privacy.sweepErasure]: { erasureId: string; organizationId: string; sealedUserId: string };
  [JOBS.privacy.retention]: Record<string, never>;
}

export const DEFAULT_JOB_OPTIONS: DefaultJobOptions = {
  attempts: 5,
  backoff: { type: 'exponential', delay: 5_000 },
  removeOnComplete: { age: 24 * 3600, count: 1000 },
  removeOnFail: { age: 7 * 24 * 3600 },
};
