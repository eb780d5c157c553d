import { Inject, Injectable } from '@nestjs/common';
import type { Redis } from 'ioredis';
import { LOGGER, REDIS, RedisKeys, type Logger } from '@foresight/platform';
import type { Principal } from '../tokens/principal';
import {
  bucketShape,
  decisionsFor,
  takeFromBucket,
  type BatchOutcome,
  type BucketDecision,
  type BucketShape,
  type BucketState,
} from './token-bucket';

/**
 * One atomic script: refill by elapsed time (Redis clock, so replicas agree), then take up to
 * ARGV[3] requests. Returns granted, remaining, retry-after ms, reset ms.
 */
const TOKEN_BUCKET_SCRIPT = `
local capacity = tonumber(ARGV[1])
local refill = tonumber(ARGV[2])
local count = tonumber(ARGV[3])
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
local granted = math.min(count, math.floor(tokens))
tokens = tokens - granted
redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'ts', now)
redis.call('PEXPIRE', KEYS[1], math.ceil(capacity / refill) + 1000)
local retry = 0
if granted < count then retry = math.ceil((1 - tokens) / refill) end
return {granted, math.floor(tokens), retry, math.ceil((capacity - tokens) / refill)}
`;

type BucketRedis = Redis & {
  takeTokens(key: string, capacity: number, refillPerMs: number, count: number): Promise<[number, number, number, number]>;
};

interface PendingBatch {
  principal: Principal;
  waiters: Array<(decision: BucketDecision) => void>;
}

/**
 * Per-token token bucket shared by all replicas through Redis. Requests of one token that arrive
 * in the same event-loop turn are decided by one script call (each still atomically, in arrival
 * order), which keeps Redis off the critical path under load.
 */
@Injectable()
export class RateLimiterService {
  private readonly pending = new Map<string, PendingBatch>();
  /** Per-process buckets used only while Redis is unreachable: limited, never refused. */
  private readonly fallback = new Map<string, BucketState>();
  private warnedFallback = false;

  constructor(
    @Inject(REDIS) private readonly redis: Redis,
    private readonly keys: RedisKeys,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {
    if (!('takeTokens' in redis)) {
      redis.defineCommand('takeTokens', { numberOfKeys: 1, lua: TOKEN_BUCKET_SCRIPT });
    }
  }

  take(principal: Principal): Promise<BucketDecision> {
    return new Promise((resolve) => {
      let batch = this.pending.get(principal.tokenId);
      if (!batch) {
        const created: PendingBatch = { principal, waiters: [] };
        this.pending.set(principal.tokenId, created);
        setImmediate(() => void this.settle(created));
        batch = created;
      }
      batch.waiters.push(resolve);
    });
  }

  private async settle(batch: PendingBatch): Promise<void> {
    this.pending.delete(batch.principal.tokenId);
    const { principal, waiters } = batch;
    const shape = bucketShape(principal.rateLimitPerMinute, principal.burstPerMinute);
    const outcome = await this.takeShared(principal.tokenId, shape, waiters.length).catch((error: unknown) =>
      this.takeLocal(principal.tokenId, shape, waiters.length, error),
    );
    decisionsFor(outcome, waiters.length).forEach((decision, i) => waiters[i](decision));
  }

  private async takeShared(tokenId: string, shape: BucketShape, count: number): Promise<BatchOutcome> {
    const [granted, remaining, retryAfterMs, resetMs] = await (this.redis as BucketRedis).takeTokens(
      this.keys.key('ratelimit', tokenId),
      shape.capacity,
      shape.refillPerMs,
      count,
    );
    this.warnedFallback = false;
    return { granted, remaining, retryAfterMs, resetMs };
  }

  private takeLocal(tokenId: string, shape: BucketShape, count: number, error: unknown): BatchOutcome {
    if (!this.warnedFallback) {
      this.logger.warn({ err: error }, 'rate limiter cannot reach Redis; limiting per process until it returns');
      this.warnedFallback = true;
    }
    const { state, outcome } = takeFromBucket(this.fallback.get(tokenId), shape, Date.now(), count);
    this.fallback.set(tokenId, state);
    return outcome;
  }
}
