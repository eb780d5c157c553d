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

/** The outcome of taking `count` requests at once: the first `granted` pass, the rest are refused. */
export interface BatchOutcome {
  granted: number;
  /** Whole requests left after the granted ones. */
  remaining: number;
  /** Milliseconds until one more request would pass (0 when all were granted). */
  retryAfterMs: number;
  resetMs: number;
}

/**
 * A bucket of (burst - rate) refilled at rate/60 per second lets at most `burst` requests
 * through in any minute and `rate` per minute sustained (300 and 600 give the 300 + 5/s the API promises).
 */
export function bucketShape(rateLimitPerMinute: number, burstPerMinute: number): BucketShape {
  return { capacity: burstPerMinute - rateLimitPerMinute, refillPerMs: rateLimitPerMinute / 60_000 };
}

export interface BucketState {
  tokens: number;
  updatedAt: number;
}

/** The same arithmetic as the Redis script, for the per-process fallback and for specs. */
export function takeFromBucket(
  state: BucketState | undefined,
  shape: BucketShape,
  now: number,
  count = 1,
): { state: BucketState; outcome: BatchOutcome } {
  const elapsed = state ? Math.max(0, now - state.updatedAt) : 0;
  let tokens = state ? Math.min(shape.capacity, state.tokens + elapsed * shape.refillPerMs) : shape.capacity;
  const granted = Math.min(count, Math.floor(tokens));
  tokens -= granted;
  return {
    state: { tokens, updatedAt: now },
    outcome: {
      granted,
      remaining: Math.floor(tokens),
      retryAfterMs: granted < count ? Math.ceil((1 - tokens) / shape.refillPerMs) : 0,
      resetMs: Math.ceil((shape.capacity - tokens) / shape.refillPerMs),
    },
  };
}

/** Splits a batch outcome into one decision per request, in arrival order. */
export function decisionsFor(outcome: BatchOutcome, count: number): BucketDecision[] {
  return Array.from({ length: count }, (_, i) =>
    i < outcome.granted
      ? { allowed: true, remaining: outcome.remaining + (outcome.granted - 1 - i), retryAfterMs: 0, resetMs: outcome.resetMs }
      : { allowed: false, remaining: 0, retryAfterMs: outcome.retryAfterMs, resetMs: outcome.resetMs },
  );
}
