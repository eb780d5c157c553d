import { bucketShape, takeFromBucket, type BucketState } from './token-bucket';

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
      last = step.decision;
      if (step.decision.allowed) allowed++;
    }
    expect(allowed).toBe(300);
    expect(last).toMatchObject({ allowed: false, remaining: 0, retryAfterMs: 200 });
  });

  it('lets through at most burst requests in any minute and the rate sustained', () => {
    let state: BucketState | undefined;
    let allowed = 0;
    // One attempt every 10 ms for a minute.
    for (let t = 0; t < 60_000; t += 10) {
      const step = takeFromBucket(state, shape, t);
      state = step.state;
      if (step.decision.allowed) allowed++;
    }
    expect(allowed).toBeLessThanOrEqual(600);
    expect(allowed).toBeGreaterThanOrEqual(595);
    let second = 0;
    for (let t = 60_000; t < 120_000; t += 10) {
      const step = takeFromBucket(state, shape, t);
      state = step.state;
      if (step.decision.allowed) second++;
    }
    expect(second).toBeGreaterThanOrEqual(299);
    expect(second).toBeLessThanOrEqual(301);
  });
});
