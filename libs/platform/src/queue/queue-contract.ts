import type { DefaultJobOptions } from 'bullmq';

/**
 * The queue contract: every queue name, job name and payload type, and the default job options.
 * Producers and processors import from here only, so the two sides cannot drift apart.
 */
export const QUEUES = {
  maintenance: 'maintenance',
} as const;

export type QueueName = (typeof QUEUES)[keyof typeof QUEUES];

export const DEFAULT_JOB_OPTIONS: DefaultJobOptions = {
  attempts: 5,
  backoff: { type: 'exponential', delay: 5_000 },
  removeOnComplete: { age: 24 * 3600, count: 1000 },
  removeOnFail: { age: 7 * 24 * 3600 },
};
