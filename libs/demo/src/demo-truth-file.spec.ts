import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateDemoUser } from './demo-generator';
import { generateSaasUsers } from './demo-saas';
import { DemoTruthFile } from './demo-truth-file';

describe('DemoTruthFile', () => {
  it('keeps every user when adds overlap a flush (the seeder does not wait between users)', async () => {
    const now = new Date('2026-11-21T00:00:00Z');
    const options = { users: 4000, days: 10, seed: 3, shift: 0, userPrefix: 't-', now };
    const path = join(mkdtempSync(join(tmpdir(), 'truth-')), 'truth.ndjson');
    const file = await DemoTruthFile.create(path, { seed: 3, shift: 0, intentSignal: 'events', userPrefix: 't-', days: 10, now: now.toISOString(), cutoff: now.toISOString(), horizonDays: 7 });
    // Several MiB of records: flushes happen while other adds are still running.
    await Promise.all(Array.from({ length: options.users }, (_, i) => file.add(generateDemoUser(options, i).truth)));
    await file.close(true);
    const ids = readFileSync(path, 'utf8').trim().split('\n').map((line) => (JSON.parse(line) as { userId: string }).userId);
    expect(new Set(ids).size).toBe(options.users);
    expect(ids).toHaveLength(options.users);
  });

  it("writes the saas mode's own targets' oracle probabilities", async () => {
    const now = new Date('2026-11-21T00:00:00Z');
    const path = join(mkdtempSync(join(tmpdir(), 'truth-')), 'truth.json');
    const cutoff = new Date(now.getTime() - 14 * 86_400_000).toISOString();
    const file = await DemoTruthFile.create(path, { seed: 3, shift: 0, intentSignal: 'saas', userPrefix: 't-', days: 40, now: now.toISOString(), cutoff, horizonDays: 14 });
    for (const { truth } of generateSaasUsers({ users: 200, days: 40, seed: 3, userPrefix: 't-', now })) await file.add(truth);
    await file.close(true);
    const written = JSON.parse(readFileSync(path, 'utf8')) as { intentSignal: string; users: Array<{ mode: string; oracle: Record<string, number> }> };
    expect(written.intentSignal).toBe('saas');
    expect(written.users).toHaveLength(200);
    const cancelling = written.users.map((u) => u.oracle.subscription_cancelled);
    expect(cancelling.every((p) => p >= 0 && p <= 1)).toBe(true);
    expect(cancelling.some((p) => p > 0)).toBe(true);
    expect(written.users.some((u) => u.oracle.plan_upgraded > 0)).toBe(true);
    expect(written.users.every((u) => u.mode === 'saas' && u.oracle.checkout === undefined)).toBe(true);
  });
});
