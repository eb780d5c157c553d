import { Inject, Injectable, type OnApplicationBootstrap } from '@nestjs/common';
import type { Logger } from '../logging/logger';
import { LOGGER } from '../logging/logger.provider';
import { REDIS } from '../redis/redis.module';
import { masterNodes, type RedisClient } from '../redis/redis-connections';

/** Redis evicting keys would silently drop queued jobs: say so loudly at start-up. */
@Injectable()
export class RedisPolicyCheckService implements OnApplicationBootstrap {
  constructor(
    @Inject(REDIS) private readonly redis: RedisClient,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    // While Redis is unreachable the outage is logged already; the policy is read once it answers.
    if (this.redis.status === 'ready') await this.check();
    else this.redis.once('ready', () => void this.check());
  }

  private async check(): Promise<void> {
    try {
      // Every master of a Cluster holds queued jobs of its own slots.
      const policies = await Promise.all(masterNodes(this.redis).map(async (node) => ((await node.config('GET', 'maxmemory-policy')) as [string, string])[1]));
      const policy = policies.find((each) => each !== 'noeviction');
      if (policy !== undefined) {
        this.logger.warn(
          { policy },
          `REDIS MISCONFIGURED: maxmemory-policy is "${policy}"; queued jobs can be evicted and lost. Set maxmemory-policy noeviction (and enable AOF).`,
        );
      }
    } catch (error) {
      this.logger.warn({ err: error }, 'could not read Redis maxmemory-policy (CONFIG may be disabled); make sure it is noeviction');
    }
  }
}
