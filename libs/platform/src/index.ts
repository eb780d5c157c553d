export { loadConfig, ConfigError, type AppConfig, type Region, type Subnet, type WebhookSettings, type WorkerMode } from './config/config';
export { environmentSchema, type Environment } from './config/config.schema';
export { cronExpression, isMinuteCron, minuteSchedule } from './config/cron-expression';
export { APP_CONFIG } from './config/config.module';
export { Secret } from './config/secret';
export { startupLine, startupSummary, type StartupSummary } from './config/startup-summary';
export { Encryptor } from './crypto/encryption';
export { AppError, notFound, invalidRequest, type ErrorCode, type ErrorDetail } from './errors/app-error';
export { isInfrastructureUnavailable } from './errors/unavailable';
export { HealthService, type Readiness } from './health/health.service';
export { newId } from './ids/ids';
export { DAY_MS } from './time/durations';
export type { Logger } from './logging/logger';
export { LOGGER } from './logging/logger.provider';
export { PinoNestLogger } from './logging/nest-logger';
export { MetricsServerService } from './metrics/metrics.module';
export { PlatformModule } from './platform.module';
export {
  QUEUES,
  JOBS,
  JOB_SCHEDULES,
  SCHEDULE_TIME_ZONE,
  WEBHOOK_DELIVERY_BACKOFF,
  contractJob,
  dispatchJob,
  type JobHandlers,
  type JobName,
  type JobPayloads,
} from './queue/queue-contract';
export { QueueModule } from './queue/queue.module';
export { REDIS, RedisKeysService } from './redis/redis.module';
export { RedisAvailabilityService } from './redis/redis-availability.service';
export { inBackground } from './queue/in-background';
export { closeOnSignals } from './lifecycle/shutdown';
export { startRuntime, type Runtime } from './runtime';
export { SERVICE_VERSION } from './version';
export { createRandom, type Random } from './random/seeded-random';
export { DomainEventsService, DOMAIN_EVENT_TYPES, type DomainEvent, type DomainEventType } from './domain-events/domain-events.service';
export { DomainEventsModule } from './domain-events/domain-events.module';
export { MonthlyPartitionsService, PARTITION_MONTHS_AHEAD } from './database/monthly-partitions.service';
export { PERSONAL_DATA_STORE, PersonalDataStoreProvider, type PersonalDataStore } from './privacy/personal-data-store';
export { RawQueriesService } from './database/raw-queries.service';
export { retriedOnConflict } from './database/conflict-retry';
export { isBigintText, isExactUtcInstant, isStorableInstant, isRowRefusal, postgresErrorCode } from './database/postgres-values';
export { QueueMetricsService } from './queue/queue-metrics.service';
export { UserActivityFeedService } from './user-activity/user-activity-feed.service';
export { UserActivityModule } from './user-activity/user-activity.module';
export { deleteInBatches } from './database/batched-delete';
