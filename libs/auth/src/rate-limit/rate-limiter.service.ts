import { Inject, Injectable } from '@nestjs/common';
import type { Redis } from 'ioredis';
import { LOGGER, REDIS, RedisKeys, type Logger } from '@foresight/platform';
import type { Principal } from '../tokens/principal';
import { bucketShape, takeFromBucket, type BucketDecision, type BucketState } from './token-bucket';

/**
 * One atomic script per request: refill by elapsed time (Redis clock, so replicas agree), take one.
 * Returns allowed, remaining, retry-after ms, reset ms.
 */
const TOKEN_BUCKET_SCRIPT = `
local capacity = tonumber(ARGV[1])
local refill = tonumber(ARGV[2])
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local state = redis.call('HMGET', KEYS[1], 'tokens', 'ts')
local tokens = tonumber(state[1])
local ts = tonumber(state[2])
if tokens == nil or ts == nil then
  tokens = capacity
else
  tokens = math.min(capacity, tokens + math.max(0, now - ts) * refill)
end
local allowed = 0
if tokens >= 1 then
  tokens = tokens - 1
  allowed = 1
end
redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'ts', now)
redis.call('PEXPIRE', KEYS[1], math.ceil(capacity / refill) + 1000)
local retry = 0
if allowed == 0 then retry = math.ceil((1 - tokens) / refill) end
return {allowed, math.floor(tokens), retry, math.ceil((capacity - tokens) / refill)}
`;

const REDIS_TIMEOUT_MS = 250;

type BucketRedis = Redis & {
  takeToken(key: string, capacity: number, refillPerMs: number): Promise<[number, number, number, number]>;
};

@Injectable()
export class RateLimiterService {
  /** Per-process buckets used only while Redis is unreachable: limited, never refused. */
  private readonly fallback = new Map<string, BucketState>();
  private warnedFallback = false;

  constructor(
    @Inject(REDIS) private readonly redis: Redis,
    private readonly keys: RedisKeys,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {
    if (!('takeToken' in redis)) {
      redis.defineCommand('takeToken', { numberOfKeys: 1, lua: TOKEN_BUCKET_SCRIPT });
    }
  }

  async take(principal: Principal): Promise<BucketDecision> {
    const shape = bucketShape(principal.rateLimitPerMinute, principal.burstPerMinute);
    try {
      const [allowed, remaining, retryAfterMs, resetMs] = await withTimeout(
        (this.redis as BucketRedis).takeToken(this.keys.key('ratelimit', principal.tokenId), shape.capacity, shape.refillPerMs),
        REDIS_TIMEOUT_MS,
      );
      this.warnedFallback = false;
      return { allowed: allowed === 1, remaining, retryAfterMs, resetMs };
    } catch (error) {
      if (!this.warnedFallback) {
        this.logger.warn({ err: error }, 'rate limiter cannot reach Redis; limiting per process until it returns');
        this.warnedFallback = true;
      }
      const { state, decision } = takeFromBucket(this.fallback.get(principal.tokenId), shape, Date.now());
      this.fallback.set(principal.tokenId, state);
      return decision;
    }
  }
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    promise,
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`Redis did not answer within ${ms} ms`)), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}
