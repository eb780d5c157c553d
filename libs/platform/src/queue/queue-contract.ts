// Installs BullMQ classes that report connection errors once; every queue registration imports this contract.
import './logged-bullmq';
import { type DefaultJobOptions, type Job, type JobsOptions, type RepeatOptions, UnrecoverableError } from 'bullmq';
import type { DomainEvent } from '../domain-events/domain-event';

/**
 * The queue contract: every queue name, job name and payload type, each job's options and
 * schedule, and the typed dispatch of processors. Producers and processors import from here only,
 * so the two sides cannot drift apart.
 * One queue per lib with background work, so a processor never receives another domain's jobs.
 */
export const QUEUES = {
  events: 'events',
  training: 'training',
  domainEvents: 'domain-events',
  webhooks: 'webhooks',
  predictions: 'predictions',
  userActivity: 'user-activity',
  /** Bulk scoring, on a queue of its own (one job at a time) so it never holds other background work back. */
  scoring: 'scoring',
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
    /**
     * Recomputes audiences' members from the prediction log after a bulk scoring run (every audience of
     * the run's models) or for a new audience, and announces who entered and left; the job id is
     * audienceRecomputeJob's.
     */
    recomputeAudiences: 'predictions.recompute-audiences',
  },
  userActivity: {
    /** A user got new events: re-score them and announce changed labels; the job id is per user (debounce). */
    rescore: 'user-activity.rescore',
  },
  scoring: {
    /** Starts a run: fixes its cutoff and queues its shards (scoreShard); the job id is the run id. */
    scoreUsers: 'scoring.score-users',
    /** Scores the users of one shard of a run (a range of user id hashes); the job id is scoringShardJobId's. */
    scoreShard: 'scoring.score-shard',
    /** Daily: queues one scoring run per organization with serving models, over all of them. */
    scoreDaily: 'scoring.score-daily',
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
  /** `runId`: the scoring run, or the new audience's id for its first computation (then `audienceIds` names it). */
  [JOBS.predictions.recomputeAudiences]: { organizationId: string; runId: string; audienceIds?: string[] };
  [JOBS.userActivity.rescore]: { organizationId: string; userId: string };
  [JOBS.scoring.scoreUsers]: { organizationId: string; modelIds: string[]; trigger: ScoringTrigger };
  [JOBS.scoring.scoreShard]: { organizationId: string; runId: string; shard: number };
  [JOBS.scoring.scoreDaily]: Record<string, never>;
  [JOBS.domainEvents.announce]: DomainEvent;
  /** retryDelaysMs is the schedule in force when the delivery was queued (read by the worker's backoff strategy). */
  [JOBS.webhooks.deliver]: { deliveryId: string; webhookId: string; organizationId: string; retryDelaysMs: number[] };
  /** The user id as the caller sent it travels only sealed with the Encryptor (bound to the erasure id); the job is removed once it confirms. */
  [JOBS.privacy.sweepErasure]: { erasureId: string; organizationId: string; sealedUserId: string };
  [JOBS.privacy.retention]: Record<string, never>;
}

/** Why a scoring run started: a promotion, the daily schedule, or a person (CLI or API). */
export type ScoringTrigger = 'promotion' | 'daily' | 'manual';

export type QueueKey = keyof typeof JOBS;
export type JobNameOf<Q extends QueueKey> = (typeof JOBS)[Q][keyof (typeof JOBS)[Q]] & keyof JobPayloads;
export type JobName = { [Q in QueueKey]: JobNameOf<Q> }[QueueKey];

/** New events of a user are re-scored this long after the first of them, so a burst is scored once. */
export const RESCORE_DEBOUNCE_MS = 3_000;
/** The first erasure sweep waits for writes in flight at erasure time (group commits, the prediction log's buffer, replicas' caches). */
const FIRST_SWEEP_DELAY_MS = 5_000;
/** Exponential from 5 s: twelve sweeps span about six hours, well within the 24 h erasure promise. */
const SWEEP_ATTEMPTS = 12;
/** The backoff type of webhook deliveries: the worker's strategy reads the schedule from the job (webhook-delivery.processor.ts). */
export const WEBHOOK_DELIVERY_BACKOFF = 'webhook-schedule';

/** Tries of a bulk scoring shard; its worker also lets it stall (worker killed) this often before BullMQ fails it for good. */
export const SCORING_SHARD_ATTEMPTS = 5;

/** Every job's options beyond DEFAULT_JOB_OPTIONS, from its payload; the producer adds only the job id. */
const JOB_OPTIONS: { [N in JobName]?: (data: JobPayloads[N]) => JobsOptions } = {
  // Two tries: a run whose worker died is taken up again, a run that fails twice marks the model failed.
  [JOBS.training.train]: () => ({ attempts: 2, removeOnComplete: true, removeOnFail: true }),
  // Job ids are per user and must be free again once the re-scoring ran.
  [JOBS.userActivity.rescore]: () => ({ delay: RESCORE_DEBOUNCE_MS, removeOnComplete: true, removeOnFail: true }),
  // Splitting a run is idempotent: a retry queues the shards that are not queued yet.
  [JOBS.scoring.scoreUsers]: () => ({ attempts: 5, backoff: { type: 'exponential', delay: 1_000 } }),
  // A shard retried after its worker died (or lost its lock) continues after the shard's checkpoint.
  [JOBS.scoring.scoreShard]: () => ({ attempts: SCORING_SHARD_ATTEMPTS, backoff: { type: 'exponential', delay: 1_000 } }),
  // The sealed user id leaves Redis once the sweep confirms.
  [JOBS.privacy.sweepErasure]: () => ({ delay: FIRST_SWEEP_DELAY_MS, attempts: SWEEP_ATTEMPTS, backoff: { type: 'exponential', delay: 5_000 }, removeOnComplete: true }),
  [JOBS.webhooks.deliver]: ({ retryDelaysMs }) => ({ attempts: retryDelaysMs.length + 1, backoff: { type: WEBHOOK_DELIVERY_BACKOFF } }),
};

export interface ContractJob<N extends JobName> {
  name: N;
  data: JobPayloads[N];
  opts: JobsOptions;
}

/** A job as the contract wants it queued (`queue.add(job.name, job.data, job.opts)` or in `addBulk`). */
export function contractJob<N extends JobName>(name: N, data: JobPayloads[N], jobId?: string): ContractJob<N> {
  const options = (JOB_OPTIONS[name])?.(data) ?? {};
  return { name, data, opts: jobId === undefined ? options : { ...options, jobId } };
}

/**
 * A bulk scoring run as queued: the job id is the run id. A promotion's run is named by the version
 * (a repeated promotion job queues nothing new), a daily run by organization and UTC day.
 */
export function scoringRunJob(data: JobPayloads[typeof JOBS.scoring.scoreUsers], runId: string): ContractJob<typeof JOBS.scoring.scoreUsers> {
  return contractJob(JOBS.scoring.scoreUsers, data, runId);
}

/** Audiences recomputed for a run (or a new audience) as queued: one job per run, so a repeated completion queues nothing new. */
export function audienceRecomputeJob(data: JobPayloads[typeof JOBS.predictions.recomputeAudiences]): ContractJob<typeof JOBS.predictions.recomputeAudiences> {
  return contractJob(JOBS.predictions.recomputeAudiences, data, `audiences/${data.runId}`);
}

/** A shard of a run as queued: named by run and shard, so a repeated split queues each shard once. */
export function scoringShardJob(data: JobPayloads[typeof JOBS.scoring.scoreShard]): ContractJob<typeof JOBS.scoring.scoreShard> {
  return contractJob(JOBS.scoring.scoreShard, data, `${data.runId}.shard-${data.shard}`);
}

/**
 * How often every worker queues again, from PostgreSQL, the jobs Redis may have lost (restarted
 * without its data, or a producer died between its commit and its job): unfinished scoring runs,
 * pending webhook deliveries, unconfirmed erasures, and the retraining schedules of stored models.
 */
export const RESUME_EVERY_MS = 60_000;

/** Schedules in UTC: a deployment's time zone never moves a job. */
export const SCHEDULE_TIME_ZONE = 'UTC';

/**
 * The deployment-wide schedules (BullMQ job schedulers named after their job). Maintenance runs
 * daily at quiet minutes apart from each other, and once at start, so a fresh deployment has its
 * partitions before the first night and one that was down at night catches up. Monitoring follows
 * MONITORING_SCHEDULE, bulk scoring SCORING_SCHEDULE, a model's retraining its own cron.
 */
export const JOB_SCHEDULES = {
  [JOBS.events.ensurePartitions]: { pattern: '17 3 * * *', immediately: true },
  [JOBS.predictions.ensurePartitions]: { pattern: '23 3 * * *', immediately: true },
  [JOBS.privacy.retention]: { pattern: '43 2 * * *', immediately: true },
} satisfies { [N in JobName]?: RepeatOptions };

/** One handler per job of a queue, each given the job typed by its name (and the worker's lock token). */
export type JobHandlers<Q extends QueueKey, R = unknown> = { [N in JobNameOf<Q>]: (job: Job<JobPayloads[N], R, N>, token?: string) => Promise<R> };

/** A processor's `process`: the job goes to the handler of its name; a name outside the queue's contract fails the job. */
export function dispatchJob<Q extends QueueKey, R>(queue: Q, handlers: JobHandlers<Q, R>, job: Job, token?: string): Promise<R> {
  // The one place a job's payload type is asserted: by its name, which the contract pairs with it.
  const byName = handlers as unknown as Record<string, (job: Job, token?: string) => Promise<R>>;
  const handler = Object.hasOwn(byName, job.name) ? byName[job.name] : undefined;
  if (!handler) throw new Error(`unknown job ${job.name} on ${QUEUES[queue]}`);
  return handler(job, token);
}

/**
 * Whether a 'failed' job will not run again: its attempts are used up, or BullMQ failed it for good. A job
 * stalled (its worker died) more often than the worker's `maxStalledCount` fails with an UnrecoverableError,
 * whatever attempts it has left, and its id still holds the failed job, so queueing it again adds nothing.
 */
export function isFinalFailure(job: Job, error: Error): boolean {
  return error instanceof UnrecoverableError || job.attemptsMade >= (job.opts.attempts ?? 1);
}

export const DEFAULT_JOB_OPTIONS: DefaultJobOptions = {
  attempts: 5,
  backoff: { type: 'exponential', delay: 5_000 },
  removeOnComplete: { age: 24 * 3600, count: 1000 },
  removeOnFail: { age: 7 * 24 * 3600 },
};
