import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig, LOGGER, type Logger, REDIS, type RedisClient, RedisKeysService, SameTurnBatches } from '@foresight/platform';
import { callerKey, type Principal } from '../tokens/principal';
import { clientAddressBucket } from './client-address';
import {
  type BatchOutcome,
  type BucketDecision,
  type BucketShape,
  bucketShape,
  type BucketState,
  decisionsFor,
  takeFromBucket,
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

const MAX_FALLBACK_BUCKETS = 100_000;

type BucketRedis = RedisClient & {
  takeTokens(key: string, capacity: number, refillPerMs: number, count: number): Promise<[number, number, number, number]>;
};

/** One request's ask of a bucket: 1 to take, or 0 to only look whether one request would pass. */
interface BucketAsk {
  bucket: string;
  shape: BucketShape;
  cost: 0 | 1;
}

/**
 * Token buckets shared by all replicas through Redis: one per token, and one per client address for
 * requests without a verified token. Requests for one bucket that arrive in the same event-loop turn
 * are decided by one script call (each still atomically, in arrival order), which keeps Redis off the
 * critical path under load.
 */
@Injectable()
export class RateLimiterService {
  /** Requests per minute (sustained) an address may make without a verified token. */
  readonly unauthenticatedPerMinute: number;
  private readonly unauthenticatedShape: BucketShape;
  /** Asks of one bucket (and cost) made in the same turn, decided by one script call. */
  private readonly asks = new SameTurnBatches<string, BucketAsk, BucketDecision>((_, asks) => this.decide(asks));
  /** Per-process buckets used only while Redis is unreachable: limited, never refused. */
  private readonly fallback = new Map<string, BucketState>();
  private warnedFallback = false;

  constructor(
    @Inject(REDIS) private readonly redis: RedisClient,
    private readonly keys: RedisKeysService,
    @Inject(LOGGER) private readonly logger: Logger,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    if (!('takeTokens' in redis)) {
      redis.defineCommand('takeTokens', { numberOfKeys: 1, lua: TOKEN_BUCKET_SCRIPT });
    }
    this.unauthenticatedPerMinute = config.http.unauthenticatedRateLimitPerMinute;
    this.unauthenticatedShape = bucketShape(config.http.unauthenticatedRateLimitPerMinute, config.http.unauthenticatedBurstPerMinute);
  }

  take(principal: Principal): Promise<BucketDecision> {
    return this.takeFrom(callerKey(principal), bucketShape(principal.rateLimitPerMinute, principal.burstPerMinute));
  }

  /**
   * For a request whose token is not (yet) verified, before anything looks the token up: refused
   * while its client address has spent its budget on failed authentications. Takes nothing, so a
   * client's first burst with a good token is never limited here.
   */
  checkUnauthenticated(clientAddress: string): Promise<BucketDecision> {
    return this.takeFrom(addressBucket(clientAddress), this.unauthenticatedShape, 0);
  }

  /** A failed authentication spends one request of its client address's budget. */
  takeUnauthenticated(clientAddress: string): Promise<BucketDecision> {
    return this.takeFrom(addressBucket(clientAddress), this.unauthenticatedShape, 1);
  }

  private takeFrom(bucket: string, shape: BucketShape, cost: 0 | 1 = 1): Promise<BucketDecision> {
    return this.asks.add(`${cost}:${bucket}`, { bucket, shape, cost });
  }

  /** Asks of one bucket and cost: one atomic take of all of them, then each decided in arrival order. */
  private async decide(asks: BucketAsk[]): Promise<BucketDecision[]> {
    const { bucket, shape, cost } = asks[0];
    const count = cost * asks.length;
    const outcome = await this.takeShared(bucket, shape, count).catch((error: unknown) => this.takeLocal(bucket, shape, count, error));
    return cost === 0 ? asks.map(() => lookDecision(outcome, shape)) : decisionsFor(outcome, asks.length);
  }

  private async takeShared(bucket: string, shape: BucketShape, count: number): Promise<BatchOutcome> {
    const [granted, remaining, retryAfterMs, resetMs] = await (this.redis as BucketRedis).takeTokens(
      this.keys.key('ratelimit', bucket),
      shape.capacity,
      shape.refillPerMs,
      count,
    );
    this.warnedFallback = false;
    return { granted, remaining, retryAfterMs, resetMs };
  }

  private takeLocal(bucket: string, shape: BucketShape, count: number, error: unknown): BatchOutcome {
    if (!this.warnedFallback) {
      this.logger.warn({ err: error }, 'rate limiter cannot reach Redis; limiting per process until it returns');
      this.warnedFallback = true;
    }
    const { state, outcome } = takeFromBucket(this.fallback.get(bucket), shape, Date.now(), count);
    // Bounded: during an outage a flood from many addresses must not grow the process without end.
    if (!this.fallback.has(bucket) && this.fallback.size >= MAX_FALLBACK_BUCKETS) this.fallback.clear();
    this.fallback.set(bucket, state);
    return outcome;
  }
}

function addressBucket(clientAddress: string): string {
  return `address:${clientAddressBucket(clientAddress)}`;
}

/** Whether one more request would pass, from an outcome that took nothing. */
function lookDecision(outcome: BatchOutcome, shape: BucketShape): BucketDecision {
  if (outcome.remaining >= 1) return { allowed: true, remaining: outcome.remaining, retryAfterMs: 0, resetMs: outcome.resetMs };
  return { allowed: false, remaining: 0, retryAfterMs: Math.ceil(1 / shape.refillPerMs), resetMs: outcome.resetMs };
}
