import { Global, Inject, Injectable, Module, type OnApplicationShutdown } from '@nestjs/common';
import type { AppConfig } from '../config/config';
import { APP_CONFIG } from '../config/config.module';
import type { Logger } from '../logging/logger';
import { LOGGER } from '../logging/logger.provider';
import { REDIS } from './redis.tokens';
import { RedisAvailabilityService } from './redis-availability.service';
import { createRedisClient, type RedisClient } from './redis-connections';
import { redisOutageLog, redisTarget } from './redis-outage-log';

export { REDIS };

@Injectable()
export class RedisKeysService {
  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  /** Every key this deployment writes starts with REDIS_PREFIX, so deployments and test suites never collide. */
  key(...parts: string[]): string {
    return `${this.config.redisPrefix}${parts.join(':')}`;
  }
}

@Injectable()
class RedisCloserService implements OnApplicationShutdown {
  constructor(@Inject(REDIS) private readonly redis: RedisClient) {}

  async onApplicationShutdown(): Promise<void> {
    await this.redis.quit().catch(() => this.redis.disconnect());
  }
}

@Global()
@Module({
  providers: [
    {
      provide: REDIS,
      inject: [APP_CONFIG, LOGGER],
      useFactory: async (config: AppConfig, logger: Logger): Promise<RedisClient> => {
        const redis = createRedisClient(config.redis, {
          enableOfflineQueue: false,
          maxRetriesPerRequest: 1,
          enableAutoPipelining: true,
          connectTimeout: 2000,
          // A slow Redis must not hold requests: callers fall back (rate limiter) or answer 503.
          commandTimeout: 250,
        });
        redisOutageLog.attach(logger, redisTarget(config.redis));
        redis.on('error', (error: Error) => redisOutageLog.failed(error));
        redis.on('ready', () => redisOutageLog.recovered());
        // Give the first connection a moment; if Redis is down the process still starts (readyz says so).
        await Promise.race([
          new Promise((resolve) => redis.once('ready', resolve)),
          new Promise((resolve) => setTimeout(resolve, 2000).unref()),
        ]);
        return redis;
      },
    },
    RedisKeysService,
    RedisAvailabilityService,
    RedisCloserService,
  ],
  exports: [REDIS, RedisKeysService, RedisAvailabilityService],
})
export class RedisModule {}
