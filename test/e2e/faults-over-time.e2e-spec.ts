import type { Check } from '../support/soak/checks';
import { runSoak } from '../support/soak/scenario';

/**
 * The short soak (the code of `npm run soak`, minutes instead of half an hour): on a PostgreSQL and a
 * Redis of its own, each fault kind once (kill -9 of an API and of a worker, PostgreSQL fast and
 * crash restarts, the postmaster stopped 10 s, Redis restarted with its AOF and with its data lost)
 * under the mixed load. Correctness only: recovery times, memory and latency are printed by the
 * soak, never asserted here.
 */
describe('faults over time', () => {
  let checks: Check[];

  beforeAll(async () => {
    // Faults start after 10 s of load and follow each other as soon as the previous one's component is
    // back; the load goes on until 5 s after the last (however long the restarts take on a busy machine).
    checks = await runSoak({ seed: 7, loadMs: 90_000, warmupMs: 10_000, rate: 6, users: 200, erasures: 3, faultRounds: 1, judgeMemory: false });
  }, 20 * 60_000);

  const failuresOf = (prefix: string) => checks.filter((c) => c.title.startsWith(prefix)).flatMap((c) => c.failures);

  it('stores every acknowledged event exactly once, and no event twice', () => {
    expect(failuresOf('events')).toEqual([]);
  });

  it('leaves no trace of an erased user in PostgreSQL or Redis', () => {
    expect(failuresOf('erasures')).toEqual([]);
  });

  it('delivers every webhook event at least once, signed, and never twice with a 2xx unless a worker was killed right after the first', () => {
    expect(failuresOf('webhooks')).toEqual([]);
  });

  it('completes every scoring run, each user scored once', () => {
    expect(failuresOf('scoring')).toEqual([]);
  });

  it('keeps every process running but the ones a fault killed', () => {
    expect(failuresOf('processes')).toEqual([]);
  });
});
