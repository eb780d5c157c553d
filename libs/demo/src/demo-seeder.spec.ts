import type { EventInput } from '@foresight/events';
import { type DemoOptions, generateDemoUsers } from './demo-generator';
import { SEED_CONCURRENCY, seedDemo } from './demo-seeder';

const options: DemoOptions = { users: 120, days: 30, seed: 7, shift: 0, userPrefix: 's-', now: new Date('2026-03-01T00:00:00Z') };
const tick = () => new Promise((resolve) => setTimeout(resolve, 1));

describe('seedDemo', () => {
  it('sends every event once, in full batches of 1000, a few batches at a time, and sums the answers', async () => {
    const expected = [...generateDemoUsers(options)].flatMap((u) => u.events.map((e) => e.messageId));
    const sent: EventInput[][] = [];
    let inFlight = 0;
    let mostInFlight = 0;
    const truths: string[] = [];
    const result = await seedDemo(
      options,
      async (batch) => {
        sent.push(batch);
        mostInFlight = Math.max(mostInFlight, ++inFlight);
        await tick();
        inFlight--;
        return { accepted: batch.length - 1, duplicates: 1 };
      },
      async (truth) => {
        truths.push(truth.userId);
      },
    );
    expect(sent.flat().map((e) => e.messageId)).toEqual(expected);
    expect(sent.slice(0, -1).every((b) => b.length === 1000)).toBe(true);
    expect(mostInFlight).toBe(SEED_CONCURRENCY);
    expect(truths).toHaveLength(120);
    expect(result).toMatchObject({ users: 120, events: expected.length, accepted: expected.length - sent.length, duplicates: sent.length });
    expect(result.eventsPerSecond).toBeGreaterThan(0);
  });

  it('fails with the first ingestion error and stops generating', async () => {
    let calls = 0;
    const failing = seedDemo({ ...options, users: 10_000 }, async () => {
      const call = ++calls;
      await tick();
      if (call === 3) throw new Error('database unavailable');
      return { accepted: 1000, duplicates: 0 };
    });
    await expect(failing).rejects.toThrow('database unavailable');
    expect(calls).toBeLessThan(3 + 2 * SEED_CONCURRENCY);
  });
});
