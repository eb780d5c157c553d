export { SameTurnBatches } from './concurrency/same-turn-batches';
export { type AppConfig, ConfigError, type DashboardSettings, loadConfig, type Region, type SsoSettings, type Subnet, type TrainingSettings, type WebhookSettings, type WorkerMode } from './config/config';
export { APP_CONFIG } from './config/config.module';
export { type Environment, environmentSchema } from './config/config.schema';
export { cronExpression, isMinuteCron, minuteSchedule } from './config/cron-expression';
export { Secret } from './config/secret';
export { startupLine, type StartupSummary, startupSummary } from './config/startup-summary';
export { Encryptor } from './crypto/encryption';
export { deleteInBatches } from './database/batched-delete';
export { batchedDelete } from './database/batched-delete.sql';
export { retriedOnConflict } from './database/conflict-retry';
export { applyMigrations } from './database/migrate';
export { MIGRATIONS } from './database/migrations';
export { MonthlyPartitionsService, PARTITION_MONTHS_AHEAD } from './database/monthly-partitions.service';
export { isBigintText, isExactUtcInstant, isRowRefusal, isStorableInstant, postgresErrorCode } from './database/postgres-values';
export { SqlExecutor, type SqlTarget, type SqlTransaction, type SqlTransactionOptions } from './database/sql/sql-executor';
export type { SqlRunner } from './database/sql/sql-runner';
export { type SqlStatement, sqlStatement } from './database/sql/sql-statement';
export { AUDIENCE_BATCH_USERS, type AudienceChange, DELIVERED_EVENT_TYPES, DOMAIN_EVENT_TYPES, type DomainEvent, type DomainEventData, type DomainEventType, type SubscribableEventType, userOfEvent } from './domain-events/domain-event';
export { DomainEventsModule } from './domain-events/domain-events.module';
export { type Announcement, DomainEventsService } from './domain-events/domain-events.service';
export { AppError, type ErrorCode, type ErrorDetail, invalidRequest, notFound } from './errors/app-error';
export { isDatabasePoolExhausted, isInfrastructureUnavailable } from './errors/unavailable';
export { HealthService, type Readiness } from './health/health.service';
export { derivedId, newId } from './ids/ids';
export { closeOnSignals } from './lifecycle/shutdown';
export type { Logger } from './logging/logger';
export { LOGGER } from './logging/logger.provider';
export { PinoNestLogger } from './logging/nest-logger';
export { MetricsServerService } from './metrics/metrics.module';
export { PlatformModule } from './platform.module';
export { type ErasedRows, PERSONAL_DATA_STORE, type PersonalDataStore, PersonalDataStoreProvider } from './privacy/personal-data-store';
export { BackgroundWork, type KeptJobScheduler } from './queue/in-background';
export { QueueModule } from './queue/queue.module';
export {
  audienceRecomputeJob,
  type ContractJob,
  contractJob,
  dispatchJob,
  isFinalFailure,
  JOB_SCHEDULES,
  type JobHandlers,
  type JobName,
  type JobPayloads,
  JOBS,
  QUEUES,
  RESUME_EVERY_MS,
  SCHEDULE_TIME_ZONE,
  SCORING_SHARD_ATTEMPTS,
  scoringRunJob,
  scoringShardJob,
  type ScoringTrigger,
  WEBHOOK_DELIVERY_BACKOFF,
} from './queue/queue-contract';
export { QueueMetricsService } from './queue/queue-metrics.service';
export { createRandom, type Random } from './random/seeded-random';
export { REDIS, RedisKeysService } from './redis/redis.module';
export { RedisAvailabilityService } from './redis/redis-availability.service';
export { createRedisClient, queueConnection, queuePrefix, type RedisClient } from './redis/redis-connections';
export { connectSql, type Runtime, type SqlRuntime, startRuntime } from './runtime';
export { printableText } from './text/printable-text';
export { DAY_MS } from './time/durations';
export { activeTraceContext, inSpan, inTraceContext, type TraceCarrier } from './tracing/trace-context';
export { UserActivityModule } from './user-activity/user-activity.module';
export { UserActivityFeedService } from './user-activity/user-activity-feed.service';
export { SERVICE_VERSION } from './version';
