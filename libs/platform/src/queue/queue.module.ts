import { BullModule } from '@nestjs/bullmq';
import { Module } from '@nestjs/common';
import { APP_CONFIG } from '../config/config.module';
import type { AppConfig } from '../config/config';
import { DEFAULT_JOB_OPTIONS } from './queue-contract';
import { RedisPolicyCheck } from './redis-policy.check';

/** BullMQ's shared connection settings. Queues themselves are registered by the lib that owns them. */
@Module({
  imports: [
    BullModule.forRootAsync({
      inject: [APP_CONFIG],
      useFactory: (config: AppConfig) => ({
        // BullMQ needs its own connection options: no key prefix, unlimited retries per request.
        connection: { url: config.redisUrl.reveal(), maxRetriesPerRequest: null },
        prefix: `${config.redisPrefix}bull`,
        defaultJobOptions: DEFAULT_JOB_OPTIONS,
      }),
    }),
  ],
  providers: [RedisPolicyCheck],
  exports: [BullModule],
})
export class QueueModule {}
