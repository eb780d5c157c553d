/** Bucket parameters from an organization's limits: sustained rate refills, burst minus rate is the bucket. */
export interface BucketShape {
  capacity: number;
  refillPerMs: number;
}

export interface BucketDecision {
  allowed: boolean;
  /** Whole requests left in the bucket after this one. */
  remaining: number;
  /** Milliseconds until the next request would be allowed (0 when allowed). */
  retryAfterMs: number;
  /** Milliseconds until the bucket is full again. */
  resetMs: number;
}

/**
 * A bucket of (burst - rate) refilled at rate/60 per second lets at most `burst` requests
 * through in any minute and `rate` per minute sustained (300 and 600 give CONTRACT.md's 300 + 5/s).
 */
export function bucketShape(rateLimitPerMinute: number, burstPerMinute: number): BucketShape {
  return { capacity: burstPerMinute - rateLimitPerMinute, refillPerMs: rateLimitPerMinute / 60_000 };
}

export interface BucketState {
  tokens: number;
  updatedAt: number;
}

/** The same arithmetic as the Redis script, for the per-process fallback and for specs. */
export function takeFromBucket(state: BucketState | undefined, shape: BucketShape, now: number): { state: BucketState; decision: BucketDecision } {
  const elapsed = state ? Math.max(0, now - state.updatedAt) : 0;
  let tokens = state ? Math.min(shape.capacity, state.tokens + elapsed * shape.refillPerMs) : shape.capacity;
  const allowed = tokens >= 1;
  if (allowed) tokens -= 1;
  return {
    state: { tokens, updatedAt: now },
    decision: {
      allowed,
      remaining: Math.floor(tokens),
      retryAfterMs: allowed ? 0 : Math.ceil((1 - tokens) / shape.refillPerMs),
      resetMs: Math.ceil((shape.capacity - tokens) / shape.refillPerMs),
    },
  };
}
