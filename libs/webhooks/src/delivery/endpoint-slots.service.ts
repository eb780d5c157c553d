import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig, REDIS, type RedisClient, RedisKeysService } from '@foresight/platform';

/**
 * At most this many attempts per webhook run at once, across every worker. With the worker's
 * concurrency well above it, an endpoint that hangs holds only these slots (each for at most the
 * timeout) while deliveries to other endpoints keep flowing.
 */
export const MAX_IN_FLIGHT_PER_ENDPOINT = 4;

/**
 * A sorted set of holders scored by expiry: a worker that dies holding a slot frees it when the
 * entry expires instead of leaking it forever (what a plain counter would do).
 */
const ACQUIRE = `
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
if redis.call('ZSCORE', KEYS[1], ARGV[4]) then return 1 end
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[3]) then return 0 end
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[4])
redis.call('PEXPIREAT', KEYS[1], ARGV[2])
return 1`;

/** Per-endpoint in-flight slots, shared by every worker through Redis. */
@Injectable()
export class EndpointSlotsService {
  private readonly holdMs: number;

  constructor(
    @Inject(REDIS) private readonly redis: RedisClient,
    private readonly keys: RedisKeysService,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    // An attempt ends by the timeout; the margin covers the database writes around it.
    this.holdMs = config.webhooks.timeoutMs + 30_000;
  }

  /** True when `holder` may start an attempt to this webhook now. */
  async acquire(webhookId: string, holder: string): Promise<boolean> {
    const now = Date.now();
    const acquired = await this.redis.eval(ACQUIRE, 1, this.key(webhookId), now, now + this.holdMs, MAX_IN_FLIGHT_PER_ENDPOINT, holder);
    return acquired === 1;
  }

  async release(webhookId: string, holder: string): Promise<void> {
    await this.redis.zrem(this.key(webhookId), holder);
  }

  private key(webhookId: string): string {
    return this.keys.key('webhooks', 'in-flight', webhookId);
  }
}
