import { bucketShape, type BucketState, decisionsFor, takeFromBucket } from './token-bucket';

describe('token bucket', () => {
  const shape = bucketShape(300, 600);

  it('holds 300 refilled at 5 per second for the default 300/600 limits', () => {
    expect(shape.capacity).toBe(300);
    expect(shape.refillPerMs * 1000).toBeCloseTo(5);
  });

  it('allows exactly the capacity at once, then refuses with a retry time', () => {
    let state: BucketState | undefined;
    let allowed = 0;
    let last;
    for (let i = 0; i < 400; i++) {
      const step = takeFromBucket(state, shape, 1_000);
      state = step.state;
      last = step.outcome;
      allowed += step.outcome.granted;
    }
    expect(allowed).toBe(300);
    expect(last).toEqual({ granted: 0, remaining: 0, retryAfterMs: 200, resetMs: 60_000 });
  });

  it('lets through at most burst requests in any minute and the rate sustained', () => {
    let state: BucketState | undefined;
    let allowed = 0;
    // One attempt every 10 ms for a minute.
    for (let t = 0; t < 60_000; t += 10) {
      const step = takeFromBucket(state, shape, t);
      state = step.state;
      allowed += step.outcome.granted;
    }
    expect(allowed).toBeLessThanOrEqual(600);
    expect(allowed).toBeGreaterThanOrEqual(595);
    let second = 0;
    for (let t = 60_000; t < 120_000; t += 10) {
      const step = takeFromBucket(state, shape, t);
      state = step.state;
      second += step.outcome.granted;
    }
    expect(second).toBeGreaterThanOrEqual(299);
    expect(second).toBeLessThanOrEqual(301);
  });

  it('decides a batch exactly as the same requests one by one', () => {
    const small = bucketShape(60, 65); // capacity 5
    const batch = takeFromBucket(undefined, small, 0, 8).outcome;
    const decisions = decisionsFor(batch, 8);
    let state: BucketState | undefined;
    const single = Array.from({ length: 8 }, () => {
      const step = takeFromBucket(state, small, 0);
      state = step.state;
      return decisionsFor(step.outcome, 1)[0];
    });
    // resetMs is the batch's (when the bucket is full again after all of it); the rest matches one by one.
    const withoutReset = (list: typeof decisions) => list.map(({ resetMs: _reset, ...rest }) => rest);
    expect(withoutReset(decisions)).toEqual(withoutReset(single));
    expect(decisions.map((d) => d.allowed)).toEqual([true, true, true, true, true, false, false, false]);
    expect(decisions.map((d) => d.remaining)).toEqual([4, 3, 2, 1, 0, 0, 0, 0]);
  });
});
