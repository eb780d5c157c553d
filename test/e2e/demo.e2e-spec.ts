import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cliJson, runCli } from '../support/processes';
import { type OrganizationWithToken, TestSuite } from '../support/suite';

interface SeedOutput {
  organizationId: string;
  users: number;
  events: number;
  accepted: number;
  duplicates: number;
  seconds: number;
  eventsPerSecond: number;
}

interface TruthFile {
  now: string;
  users: Array<{ userId: string; anonymousId: string | null; identifiedAt: string | null; source: string; oracle: Record<string, number> }>;
}

/** The demo generator through the real CLI process into the suite's Postgres (no API process needed). */
describe('demo seed', () => {
  let suite: TestSuite;
  let org: OrganizationWithToken;
  let dir: string;
  let first: SeedOutput;
  let truth: TruthFile;
  const seed = (extra: string[] = []) =>
    cliJson<SeedOutput>(suite.env, ['demo', 'seed', '--org', org.organization.id, '--users', '200', '--days', '30', ...extra]);
  const count = async (sql: string, params: unknown[] = [org.organization.id]) => Number((await suite.sql<{ n: string }>(sql, params))[0].n);

  beforeAll(async () => {
    suite = await TestSuite.create('demo');
    org = await suite.createOrganization('Demo');
    dir = await mkdtemp(join(tmpdir(), 'foresight-demo-'));
    first = await seed(['--truth-file', join(dir, 'truth.json')]);
    truth = JSON.parse(await readFile(join(dir, 'truth.json'), 'utf8')) as TruthFile;
  });
  afterAll(async () => {
    await suite?.destroy();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('stores every generated event once and reports it', async () => {
    expect(first).toMatchObject({ organizationId: org.organization.id, users: 200, duplicates: 0 });
    expect(first.events).toBeGreaterThan(200 * 20);
    expect(first.accepted).toBe(first.events);
    expect(first.eventsPerSecond).toBeGreaterThan(0);
    expect(await count('SELECT count(*) AS n FROM events WHERE organization_id = $1')).toBe(first.accepted);
    expect(await count('SELECT count(DISTINCT message_id) AS n FROM events WHERE organization_id = $1')).toBe(first.accepted);
    const [range] = await suite.sql<{ oldest: Date; newest: Date }>(
      'SELECT min(occurred_at) AS oldest, max(occurred_at) AS newest FROM events WHERE organization_id = $1',
      [org.organization.id],
    );
    const now = Date.parse(truth.now);
    expect(range.oldest.getTime()).toBeGreaterThanOrEqual(now - 30 * 24 * 3600_000);
    expect(range.newest.getTime()).toBeLessThanOrEqual(now);
  });

  it('stores nothing twice when the same seed runs again', async () => {
    const again = await seed();
    expect(again).toMatchObject({ users: 200, events: first.events, accepted: 0, duplicates: first.events });
    expect(await count('SELECT count(*) AS n FROM events WHERE organization_id = $1')).toBe(first.accepted);
  });

  it('links the anonymous-then-identified users and exercises both client and derived sessions', async () => {
    const identified = truth.users.filter((u) => u.anonymousId !== null && u.identifiedAt !== null);
    expect(identified.length).toBeGreaterThan(10);
    const links = await suite.sql<{ anonymous_id: string; user_id: string }>('SELECT anonymous_id, user_id FROM identities WHERE organization_id = $1', [
      org.organization.id,
    ]);
    expect(new Map(links.map((l) => [l.anonymous_id, l.user_id]))).toEqual(new Map(identified.map((u) => [u.anonymousId, u.userId])));
    const backendUsers = truth.users.filter((u) => u.source === 'backend').map((u) => u.userId);
    expect(backendUsers.length).toBeGreaterThan(10);
    const backendSessions = 'SELECT count(*) AS n FROM events WHERE organization_id = $1 AND user_id = ANY($2) AND session_id IS NOT NULL';
    expect(await count(backendSessions, [org.organization.id, backendUsers])).toBe(0);
    expect(await count('SELECT count(*) AS n FROM events WHERE organization_id = $1 AND session_id IS NOT NULL')).toBeGreaterThan(first.events / 2);
  });

  it('writes the truth of every user, with oracle probabilities in [0, 1]', () => {
    expect(truth.users).toHaveLength(200);
    for (const user of truth.users) {
      for (const target of ['checkout', 'upgrade', 'churn']) {
        expect(user.oracle[target]).toBeGreaterThanOrEqual(0);
        expect(user.oracle[target]).toBeLessThanOrEqual(1);
      }
    }
  });

  it('refuses an unknown organization with a clear message and stores nothing', async () => {
    const before = await count('SELECT count(*) AS n FROM events', []);
    const result = await runCli(suite.env, ['demo', 'seed', '--org', 'org_doesnotexist', '--users', '5', '--days', '3']);
    expect(result.code).not.toBe(0);
    expect(JSON.parse(result.stderr)).toEqual({ error: 'not_found', message: 'organization org_doesnotexist not found' });
    expect(await count('SELECT count(*) AS n FROM events', [])).toBe(before);
  });

  it('seeds the saas mode, with its own targets in the truth file', async () => {
    const saas = await suite.createOrganization('Demo SaaS');
    const output = await cliJson<SeedOutput>(suite.env, [
      'demo', 'seed', '--org', saas.organization.id, '--users', '200', '--days', '30', '--intent-signal', 'saas', '--truth-file', join(dir, 'saas.ndjson'),
    ]);
    expect(await count('SELECT count(*) AS n FROM events WHERE organization_id = $1', [saas.organization.id])).toBe(output.accepted);
    const names = await suite.sql<{ event: string }>('SELECT DISTINCT event FROM events WHERE organization_id = $1', [saas.organization.id]);
    expect(names.map((n) => n.event)).toEqual(expect.arrayContaining(['screen_view', 'feature_used', 'subscription_cancelled', 'plan_upgraded']));
    const users = (await readFile(join(dir, 'saas.ndjson'), 'utf8')).trim().split('\n').map((line) => JSON.parse(line) as { oracle: Record<string, number> });
    expect(users).toHaveLength(200);
    for (const user of users) {
      for (const target of ['subscription_cancelled', 'plan_upgraded']) expect(user.oracle[target]).toBeGreaterThanOrEqual(0);
    }
  });

  it('refuses a bad option before touching anything', async () => {
    const result = await runCli(suite.env, ['demo', 'seed', '--org', org.organization.id, '--users', '0', '--days', '3']);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain('--users must be a whole number of at least 1');
    const drifted = await runCli(suite.env, ['demo', 'seed', '--org', org.organization.id, '--users', '5', '--days', '3', '--intent-signal', 'saas', '--shift', '0.5']);
    expect(drifted.code).not.toBe(0);
    expect(drifted.stderr).toContain('the saas mode has none');
  });
});
