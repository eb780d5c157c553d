import { randomBytes, randomUUID } from 'node:crypto';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { JOBS } from '@foresight/platform';
import { eventually } from '../support/eventually';
import { request } from '../support/http';
import { cliJson, runCli, type RunningProcess, startApi, startWorker } from '../support/processes';
import { REDIS_URL } from '../support/services';
import { type OrganizationWithToken, withApiSuite } from '../support/suite';
import { learnablePopulation, promotionRunsDone, sendEvents, settledModel, type TestEvent } from '../support/training';

interface UserExport {
  userId: string;
  exportedAt: string;
  events: Array<{ messageId: string; userId: string | null; anonymousId: string | null; properties: Record<string, unknown> | null; context: Record<string, unknown> | null }>;
  predictions: Array<{ model: string }>;
  sessions: Array<{ sessionId: string; eventCount: number }>;
  identities: Array<{ anonymousId: string }>;
  queuedJobs: Array<{ queue: string; name: string; data: unknown }>;
}
interface Erasure {
  id: string;
  userHash: string;
  status: 'pending' | 'confirmed';
  attempts: number;
  erased: Record<string, number>;
}

/** Ids unlike any other string the suite stores, so a substring scan finds only them. */
const ERASED = 'erase-me-7f3a9c';
const KEPT = 'keep-me-2b9c41';
const SECRET_PROPERTY = 'plan-secret-5d1e';

/** A user's recent history: a client session, an anonymous visit linked by identify, custom properties and context. */
function history(userId: string): TestEvent[] {
  const at = (minutesAgo: number) => new Date(Date.now() - minutesAgo * 60_000).toISOString();
  const anonymousId = `anon-of-${userId}`;
  return [
    { event: 'page_view', anonymousId, timestamp: at(300), properties: { url: 'https://shop.test/pricing' }, messageId: randomUUID() },
    { event: 'identify', anonymousId, userId, timestamp: at(299), messageId: randomUUID() },
    ...Array.from({ length: 6 }, (_, k) => ({
      event: k % 2 ? 'screen_view' : 'click',
      userId,
      sessionId: `sess-${randomUUID()}`.slice(0, 12),
      timestamp: at(120 - k),
      properties: { screen: 'pricing', dwellMs: 4000, plan: SECRET_PROPERTY },
      context: { app: { version: '1.2.3' } },
      messageId: randomUUID(),
    })),
  ];
}

describe('privacy: export, erasure across every store, suppression, pseudonymization, audit', () => {
  const t = withApiSuite('privacy');
  let worker: RunningProcess | undefined;
  /** The erased user's export before erasure: the erasure record must count what it listed. */
  let exportedBeforeErasure: UserExport;
  /** The environment the worker runs with: key rotation changes it. */
  let workerEnv: Record<string, string> | undefined;
  let redis: Redis;

  const api = <T>(path: string, method = 'GET', token = t.org.token.secret, body?: unknown) =>
    request<T>(`${t.api.baseUrl}${path}`, { token, method, body });
  const exportUser = (userId: string, token?: string) => api<UserExport>(`/v1/users/export?userId=${encodeURIComponent(userId)}`, 'GET', token);
  const deleteUser = (userId: string, extra = '', token?: string) =>
    api<{ status: string; userId: string }>(`/v1/users?userId=${encodeURIComponent(userId)}${extra}`, 'DELETE', token);
  const erasures = async (org = t.org) => (await cliJson<{ erasures: Erasure[] }>(t.suite.env, ['privacy', 'erasures', '--org', org.organization.id])).erasures;

  /** Where a string occurs: every text, varchar, array and JSON column of every table, and every Redis key and value of the suite. */
  async function occurrences(needle: string): Promise<string[]> {
    const found: string[] = [];
    const columns = await t.suite.sql<{ table_name: string; column_name: string }>(
      `SELECT c.table_name, c.column_name FROM information_schema.columns c JOIN information_schema.tables t USING (table_schema, table_name)
        WHERE c.table_schema = 'public' AND t.table_type = 'BASE TABLE' AND c.data_type IN ('text', 'character varying', 'json', 'jsonb', 'ARRAY')`,
    );
    expect(columns.length).toBeGreaterThan(20);
    // One statement for every column: a connection per column made six scans of a few hundred columns take minutes on a loaded machine.
    const hits = await t.suite.sql<{ i: number }>(
      columns.map(({ table_name: table, column_name: column }, i) => `SELECT ${i} AS i WHERE EXISTS (SELECT 1 FROM "${table}" WHERE "${column}"::text LIKE $1)`).join(' UNION ALL '),
      [`%${needle}%`],
    );
    for (const { i } of hits) found.push(`postgres ${columns[i].table_name}.${columns[i].column_name}`);
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${t.suite.env.REDIS_PREFIX}*`, 'COUNT', 1000);
      cursor = next;
      for (const key of keys) {
        if (key.includes(needle)) found.push(`redis key ${key}`);
        if ((await redisValue(key)).includes(needle)) found.push(`redis value of ${key}`);
      }
    } while (cursor !== '0');
    return found;
  }

  async function redisValue(key: string): Promise<string> {
    switch (await redis.type(key)) {
      case 'string':
        return (await redis.get(key)) ?? '';
      case 'hash':
        return JSON.stringify(await redis.hgetall(key));
      case 'list':
        return JSON.stringify(await redis.lrange(key, 0, -1));
      case 'set':
        return JSON.stringify(await redis.smembers(key));
      case 'zset':
        return JSON.stringify(await redis.zrange(key, 0, -1));
      case 'stream':
        return JSON.stringify(await redis.xrange(key, '-', '+'));
      default:
        return '';
    }
  }

  /** eventually(), failing with the last value and the worker's latest output. */
  const until = <T,>(what: string, probe: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 60_000): Promise<T> =>
    eventually(what, async () => {
      const value = await probe();
      if (!done(value)) throw new Error(`${what}: still ${JSON.stringify(value)}\n${worker?.output().slice(-2000) ?? ''}`);
      return value;
    }, timeoutMs);

  const servedRows = async (users: string[]) =>
    Number((await t.suite.sql<{ n: string }>(`SELECT count(*) AS n FROM predictions WHERE user_id = ANY($1) AND scoring_run IS NULL`, [users]))[0].n);

  /** A domain event naming the user, as a producer in the worker would queue it (prediction.updated). */
  async function queueDomainEventAbout(userId: string): Promise<void> {
    const queue = new Queue('domain-events', { connection: { url: REDIS_URL }, prefix: `${t.suite.env.REDIS_PREFIX}bull` });
    await queue.add('domain-events.announce', {
      id: `evt_${randomUUID().replaceAll('-', '').slice(0, 16)}`,
      type: 'prediction.updated',
      organizationId: t.org.organization.id,
      createdAt: new Date().toISOString(),
      data: { userId, model: 'checkout', modelId: 'mdl_x', version: 1, label: 'likely', previousLabel: 'unlikely', confidence: 0.8 },
    });
    await queue.close();
  }

  beforeAll(async () => {
    redis = new Redis(REDIS_URL);
    worker = await startWorker(t.suite.env);
    await sendEvents(t.api.baseUrl, t.org.token.secret, [...learnablePopulation(400, 100), ...history(ERASED), ...history(KEPT)]);
    const model = await api<{ id: string }>('/v1/models', 'POST', t.org.token.secret, { name: 'checkout_soon', targetEvent: 'checkout' });
    await api('/v1/models/retrain', 'POST', t.org.token.secret, { modelId: model.body.id });
    expect(await settledModel(t.api.baseUrl, t.org.token.secret, model.body.id, worker)).toMatchObject({ status: 'active' });
    // The promotion's bulk scoring logs each active user once, beside the served prediction below.
    await promotionRunsDone(t.suite, t.org.organization.id);
    for (const user of [ERASED, KEPT]) {
      await until(`a prediction for ${user}`, () => api<{ predictions: unknown[] }>(`/v1/predict?userId=${user}`), (r) => r.body.predictions?.length === 1, 10_000);
    }
    await queueDomainEventAbout(ERASED);
    await until('the served predictions logged', () => servedRows([ERASED, KEPT]), (n) => n === 2, 10_000);
  });

  afterAll(async () => {
    await worker?.stop();
    redis?.disconnect();
  });

  it('exports everything stored about a user, with properties and context decrypted', async () => {
    const exported = await exportUser(ERASED);
    expect(exported.status).toBe(200);
    const sent = history(ERASED);
    expect(exported.body.userId).toBe(ERASED);
    expect(exported.body.events).toHaveLength(sent.length); // the linked anonymous page view included
    expect(exported.body.events.find((e) => e.anonymousId !== null && e.userId === null)?.properties).toEqual({ url: 'https://shop.test/pricing' });
    expect(exported.body.events.filter((e) => e.properties?.plan === SECRET_PROPERTY)).toHaveLength(6);
    expect(exported.body.events.filter((e) => (e.context as { app?: unknown } | null)?.app)).toHaveLength(6);
    expect(exported.body.sessions.reduce((sum, s) => sum + s.eventCount, 0)).toBe(sent.length);
    expect(exported.body.predictions).toEqual([expect.objectContaining({ model: 'checkout_soon' }), expect.objectContaining({ model: 'checkout_soon' })]);
    expect(exported.body.identities).toEqual([expect.objectContaining({ anonymousId: `anon-of-${ERASED}` })]);
    expect(exported.body.queuedJobs).toHaveLength(1);
    expect((await exportUser('nobody-at-all')).status).toBe(404);
    exportedBeforeErasure = exported.body;
  });

  it('stores custom properties and context only as XAES-256-GCM ciphertext with a key id', async () => {
    const rows = await t.suite.sql<{ properties: string; context: string; encryption_key_id: string }>(
      `SELECT properties, context, encryption_key_id FROM events WHERE user_id = $1`,
      [KEPT],
    );
    expect(rows).toHaveLength(7);
    for (const row of rows.filter((r) => r.context !== null)) {
      expect(row.properties).toMatch(new RegExp(`^v2:${row.encryption_key_id}:[A-Za-z0-9+/]+=*$`));
      expect(row.context).toMatch(/^v2:/);
    }
    const [{ n }] = await t.suite.sql<{ n: string }>(`SELECT count(*) AS n FROM events WHERE properties LIKE $1 OR context LIKE '%version%'`, [`%${SECRET_PROPERTY}%`]);
    expect(Number(n)).toBe(0);
  });

  it('needs the admin scope', async () => {
    const reader = await api<{ token: string }>('/v1/tokens', 'POST', t.org.token.secret, { environment: 'prod', scopes: ['read', 'ingest'] });
    expect((await exportUser(ERASED, reader.body.token)).status).toBe(403);
    expect((await deleteUser(ERASED, '', reader.body.token)).status).toBe(403);
    expect((await api('/v1/users', 'DELETE')).status).toBe(400);
  });

  it('erases the user from every table and from Redis before answering, and leaves other users alone', async () => {
    const keptBefore = await exportUser(KEPT);
    // The scan finds what it looks for: before erasure the user is in Postgres and in a queued job in Redis.
    expect(await occurrences(ERASED)).toEqual(
      expect.arrayContaining(['postgres events.user_id', 'postgres identities.user_id', 'postgres predictions.user_id', expect.stringMatching(/^redis value of .*domain-events/)]),
    );

    expect(await deleteUser(ERASED)).toMatchObject({ status: 200, body: { status: 'deleted', userId: ERASED } });

    expect(await occurrences(ERASED)).toEqual([]);
    expect((await api(`/v1/predict?userId=${ERASED}`)).status).toBe(404);
    expect((await exportUser(ERASED)).status).toBe(404);
    expect((await deleteUser(ERASED)).status).toBe(404);
    const keptAfter = await exportUser(KEPT);
    expect({ ...keptAfter.body, exportedAt: '' }).toEqual({ ...keptBefore.body, exportedAt: '' });
  });

  it('keeps an erasure record without the id in clear, confirmed by the sweep', async () => {
    const [record] = await until('the erasure confirmed', erasures, (list) => list[0]?.status === 'confirmed');
    expect(record).toMatchObject({ id: expect.stringMatching(/^era_/), userHash: expect.stringMatching(/^[0-9a-f]{64}$/), attempts: 1 });
    // Export and erasure count the same rows: the record's count of each section is what the export listed.
    const { events, identities, predictions, queuedJobs } = exportedBeforeErasure;
    expect(record.erased).toEqual({ events: events.length, identities: identities.length, predictions: predictions.length, queuedJobs: queuedJobs.length });
    // 8 events, 1 identity link; the promotion's bulk-scored prediction and the served one.
    expect(record.erased).toEqual({ events: 8, identities: 1, predictions: 2, queuedJobs: 1 });
    const byUser = await cliJson<{ erasures: Erasure[] }>(t.suite.env, ['privacy', 'erasures', '--org', t.org.organization.id, '--user', ERASED]);
    expect(byUser.erasures.map((e) => e.id)).toEqual([record.id]);
  });

  it('completes an erasure requested while the worker is down once it returns', async () => {
    const user = 'offline-erasure-91ce';
    await sendEvents(t.api.baseUrl, t.org.token.secret, history(user));
    await worker?.stop();
    worker = undefined;
    expect((await deleteUser(user)).status).toBe(200);
    const [pending] = await erasures();
    const sweeps = new Queue('privacy', { connection: { url: REDIS_URL }, prefix: `${t.suite.env.REDIS_PREFIX}bull` });
    try {
      // Deliberately waited, it is what is tested: past the first sweep's due time (and a margin for a runner to take it), nobody runs it.
      await until('the first sweep to be overdue', async () => {
        const job = await sweeps.getJob(pending.id);
        return job ? Date.now() - (job.timestamp + job.delay) : -Infinity;
      }, (overdueMs) => overdueMs > 1_000, 30_000);
      expect(await (await sweeps.getJob(pending.id))?.getState()).toMatch(/^(delayed|waiting)$/);
    } finally {
      await sweeps.close();
    }
    expect((await erasures())[0]).toMatchObject({ id: pending.id, status: 'pending', attempts: 0 });
    expect(await occurrences(user)).toEqual([]); // the sweep job carries the id sealed

    worker = await startWorker(t.suite.env);
    expect((await until('the erasure confirmed', erasures, (list) => list[0]?.status === 'confirmed'))[0].attempts).toBe(1);
  });

  it('with suppress=true drops the user’s later events until unsuppressed', async () => {
    const user = 'suppressed-4a7b';
    await sendEvents(t.api.baseUrl, t.org.token.secret, history(user));
    expect((await deleteUser(user, '&suppress=true')).status).toBe(200);

    const later = await api('/v1/events', 'POST', t.org.token.secret, [...history(user), { event: 'click', userId: 'bystander-c3', messageId: randomUUID() }]);
    expect(later.body).toEqual({ status: 'accepted', accepted: 1, duplicates: 0, suppressed: 8 });
    expect(await occurrences(user)).toEqual([]);

    await cliJson(t.suite.env, ['privacy', 'unsuppress', '--org', t.org.organization.id, '--user', user]);
    // Other processes' copies of the list refresh within 5 s.
    await until('events accepted again', () => api<{ accepted: number }>('/v1/events', 'POST', t.org.token.secret, history(user)), (r) => r.body.accepted === 8, 10_000);
  });

  describe('an organization with hashUserIds', () => {
    let hashed: OrganizationWithToken;
    const user = 'pseudonymous-e8d2';

    beforeAll(async () => {
      hashed = await t.suite.createOrganization('hashed', ['--hash-user-ids', 'true']);
      await sendEvents(t.api.baseUrl, hashed.token.secret, history(user));
    });

    it('stores user and anonymous ids only as keyed hashes, while callers keep using raw ids', async () => {
      expect(await occurrences(user)).toEqual([]);
      const stored = await t.suite.sql<{ user_id: string | null; anonymous_id: string | null }>(`SELECT user_id, anonymous_id FROM events WHERE organization_id = $1`, [hashed.organization.id]);
      expect(stored).toHaveLength(8);
      for (const row of stored) for (const id of [row.user_id, row.anonymous_id]) if (id !== null) expect(id).toMatch(/^psn_[A-Za-z0-9_-]{43}$/);
      // The same raw id in another organization gets another pseudonym.
      const sessions = await request<{ userId: string; sessions: unknown[] }>(`${t.api.baseUrl}/v1/users/sessions?userId=${user}`, { token: hashed.token.secret });
      expect(sessions.body.userId).toBe(user);
      expect(sessions.body.sessions.length).toBeGreaterThan(0);
      const exported = await exportUser(user, hashed.token.secret);
      expect(exported.body.userId).toBe(user);
      expect(exported.body.events).toHaveLength(8);
      expect(await api(`/v1/predict?userId=${user}`, 'GET', hashed.token.secret)).toMatchObject({ status: 200, body: { userId: user, predictions: [] } });
    });

    it('answers a prediction by session without revealing the stored id', async () => {
      const sessionId = 'sess-hashed-org';
      await sendEvents(t.api.baseUrl, hashed.token.secret, [{ event: 'click', userId: user, sessionId, timestamp: new Date(Date.now() - 60_000).toISOString(), messageId: randomUUID() }]);
      const answer = await api<{ userId?: string; sessionId: string; predictions: unknown[] }>(`/v1/predict?sessionId=${sessionId}`, 'GET', hashed.token.secret);
      expect(answer).toMatchObject({ status: 200, body: { sessionId, predictions: [] } });
      // The raw id is not stored, so it cannot be echoed; the pseudonym must not leave the service either.
      expect(answer.body.userId).toBeUndefined();
      expect(JSON.stringify(answer.body)).not.toContain('psn_');
    });

    it('erases by the raw id', async () => {
      expect((await deleteUser(user, '', hashed.token.secret)).status).toBe(200);
      expect((await t.suite.sql(`SELECT 1 FROM events WHERE organization_id = $1`, [hashed.organization.id])).length).toBe(0);
      expect((await exportUser(user, hashed.token.secret)).status).toBe(404);
    });
  });

  it('audits admin actions with the acting token, naming users only by keyed hash', async () => {
    const listed = await cliJson<{ entries: Array<{ action: string; target: string | null; actor: string; actorTokenId: string | null }> }>(t.suite.env, [
      'audit',
      'list',
      '--org',
      t.org.organization.id,
    ]);
    // The organization and its first token were created at the CLI, and audited as such.
    const entries = listed.entries.filter((e) => e.actor === 'token');
    const actions = entries.map((e) => e.action);
    expect(actions).toEqual(expect.arrayContaining(['model.create', 'model.retrain', 'token.create', 'user.export', 'user.delete']));
    expect(entries.every((e) => e.actorTokenId === t.org.token.id)).toBe(true);
    const [erasure] = (await erasures()).slice(-1);
    expect(entries.filter((e) => e.action === 'user.delete').map((e) => e.target)).toContain(`user:${erasure.userHash}`);
    expect(JSON.stringify(entries)).not.toContain(ERASED);
  });

  it('re-encrypts every stored payload under a new key in the background (cli keys rotate)', async () => {
    const rotated = { ...t.suite.env, ENCRYPTION_KEY: randomBytes(32).toString('hex'), ENCRYPTION_PREVIOUS_KEYS: t.suite.env.ENCRYPTION_KEY };
    // A row from before encryption at rest: plain JSON, no key id.
    await t.suite.sql(
      `INSERT INTO events (organization_id, message_id, event, user_id, occurred_at, received_at, properties) VALUES ($1, 'legacy-1', 'click', $2, now(), now(), $3)`,
      [t.org.organization.id, KEPT, JSON.stringify({ plan: 'legacy' })],
    );
    await worker?.stop();
    workerEnv = rotated;
    worker = await startWorker(rotated);
    const { currentKeyId } = await cliJson<{ currentKeyId: string }>(rotated, ['keys', 'rotate']);
    // The deployment runs on the new key from here on: the database's key check now names it, so a
    // process started with the old key alone is refused.
    Object.assign(t.suite.env, { ENCRYPTION_KEY: rotated.ENCRYPTION_KEY, ENCRYPTION_PREVIOUS_KEYS: rotated.ENCRYPTION_PREVIOUS_KEYS });
    const stale = async () =>
      Number(
        (await t.suite.sql<{ n: string }>(`SELECT count(*) AS n FROM events WHERE (properties IS NOT NULL OR context IS NOT NULL) AND encryption_key_id IS DISTINCT FROM $1`, [currentKeyId]))[0].n,
      );
    expect(await stale()).toBeGreaterThan(1000);
    await until('every payload under the new key', stale, (n) => n === 0, 120_000);

    // Readable with the new key alone once rotation finished.
    const api2 = await startApi({ ...rotated, ENCRYPTION_PREVIOUS_KEYS: '' });
    try {
      const exported = await request<UserExport>(`${api2.baseUrl}/v1/users/export?userId=${KEPT}`, { token: t.org.token.secret });
      expect(exported.body.events.filter((e) => e.properties?.plan === SECRET_PROPERTY)).toHaveLength(6);
      expect(exported.body.events.find((e) => e.messageId === 'legacy-1')?.properties).toEqual({ plan: 'legacy' });
    } finally {
      await api2.stop();
    }
  });

  it("deletes events older than an organization's retention in the daily job (also run when the worker starts)", async () => {
    const longMemory = await t.suite.createOrganization('long-memory');
    const sixtyDaysAgo = new Date(Date.now() - 60 * 86_400_000).toISOString();
    await sendEvents(t.api.baseUrl, longMemory.token.secret, [{ event: 'click', userId: 'old-timer', timestamp: sixtyDaysAgo }]);
    await sendEvents(t.api.baseUrl, t.org.token.secret, [
      { event: 'click', userId: 'faded', timestamp: sixtyDaysAgo },
      // Linked long ago; only a recent anonymous event is left after retention, and it still counts.
      { event: 'identify', userId: 'linked-only', anonymousId: 'anon-linked-only', timestamp: sixtyDaysAgo },
      { event: 'click', anonymousId: 'anon-linked-only' },
    ]);
    const activityRows = async (org: OrganizationWithToken, userId: string) =>
      Number((await t.suite.sql<{ n: string }>(`SELECT count(*) AS n FROM user_activity WHERE organization_id = $1 AND user_id = $2`, [org.organization.id, userId]))[0].n);
    expect(await activityRows(t.org, 'faded')).toBe(1);
    // Fixed before the job runs: events cross the 30-day line while this long suite runs.
    let cutoff = new Date(Date.now() - 30 * 86_400_000).toISOString();
    const olderThan30Days = async (org: OrganizationWithToken) =>
      Number((await t.suite.sql<{ n: string }>(`SELECT count(*) AS n FROM events WHERE organization_id = $1 AND occurred_at < $2`, [org.organization.id, cutoff]))[0].n);
    expect(await olderThan30Days(t.org)).toBeGreaterThan(1000);

    await cliJson(t.suite.env, ['org', 'update', t.org.organization.id, '--retention-days', '30']);
    await worker?.stop();
    cutoff = new Date(Date.now() - 30 * 86_400_000).toISOString();
    worker = await startWorker(workerEnv ?? t.suite.env);
    await until('expired events deleted', () => olderThan30Days(t.org), (n) => n === 0);
    expect(await olderThan30Days(longMemory)).toBe(1); // kept for the default 395 days
    const [{ n }] = await t.suite.sql<{ n: string }>(`SELECT count(*) AS n FROM events WHERE organization_id = $1`, [t.org.organization.id]);
    expect(Number(n)).toBeGreaterThan(0); // recent history stays
    // A user left with no event keeps no activity row either.
    await until('the activity row of a user with no event left removed', () => activityRows(t.org, 'faded'), (rows) => rows === 0);
    expect(await activityRows(longMemory, 'old-timer')).toBe(1);
    expect(await activityRows(t.org, 'linked-only')).toBe(1);
  });

  it('never names a user in BullMQ job ids or event streams, and the erasure sweeps the streams too', async () => {
    const org = await t.suite.createOrganization('streams');
    const user = 'stream-user-3e8d1f';
    const encoded = Buffer.from(user).toString('base64url');
    const redisHits = async (needle: string) => (await occurrences(needle)).filter((where) => where.startsWith('redis'));
    const streams = { activity: `${t.suite.env.REDIS_PREFIX}bull:user-activity:events`, events: `${t.suite.env.REDIS_PREFIX}bull:domain-events:events` };
    // Someone listens to prediction.updated, so ingestion queues a re-scoring job per active user.
    const hook = await request(`${t.api.baseUrl}/v1/webhooks`, {
      token: org.token.secret,
      method: 'POST',
      body: { url: 'https://hooks.example.com/streams', events: ['prediction.updated'] },
    });
    expect(hook.status).toBe(200);
    await sendEvents(t.api.baseUrl, org.token.secret, history(user));
    await until(
      "the user's re-scoring job run by the worker",
      async () => (await redis.xrange(streams.activity, '-', '+')).filter(([, fields]) => fields[1] === 'completed' && fields[3]?.startsWith(`${org.organization.id}/`)).length,
      (completed) => completed > 0,
    );
    expect(await redisHits(encoded)).toEqual([]);
    expect(await redisHits(user)).toEqual([]);

    // Entries an older release left, naming the job by the base64url of the id.
    const legacyJobId = `${org.organization.id}/${encoded}`;
    await redis.xadd(streams.activity, '*', 'event', 'completed', 'jobId', legacyJobId, 'returnvalue', '{"changed":1}');
    await redis.xadd(streams.events, '*', 'event', 'added', 'jobId', `prediction.updated/${legacyJobId}-1763900000000-mdl_x`, 'name', 'domain-events.announce');
    // SCAN visits keys in no set order.
    expect((await redisHits(encoded)).sort()).toEqual([expect.stringContaining('domain-events:events'), expect.stringContaining('user-activity:events')]);

    // The user's job and stream entry behind more than a page of others': the erasure reads every page.
    const activity = new Queue('user-activity', { connection: { url: t.suite.env.REDIS_URL }, prefix: `${t.suite.env.REDIS_PREFIX}bull` });
    const lateJobId = `late-${org.organization.id}`;
    try {
      const later = { delay: 3_600_000 };
      await activity.addBulk(Array.from({ length: 250 }, (_, i) => ({ name: JOBS.userActivity.rescore, data: { organizationId: org.organization.id, userId: `filler-${i}` }, opts: { ...later, jobId: `filler-${org.organization.id}-${i}` } })));
      await activity.add(JOBS.userActivity.rescore, { organizationId: org.organization.id, userId: user }, { ...later, jobId: lateJobId });
      for (let i = 0; i < 450; i++) await redis.xadd(streams.activity, '*', 'event', 'added', 'jobId', `filler-${i}`);
      await redis.xadd(streams.activity, '*', 'event', 'completed', 'jobId', legacyJobId, 'returnvalue', '{"changed":1}');

      expect((await request(`${t.api.baseUrl}/v1/users?userId=${user}`, { token: org.token.secret, method: 'DELETE' })).status).toBe(200);
      expect(await activity.getJob(lateJobId)).toBeUndefined();
      expect(await activity.getJob(`filler-${org.organization.id}-0`)).toBeDefined();
    } finally {
      await activity.close();
    }
    expect(await redisHits(encoded)).toEqual([]);
    const [record] = await until('the erasure confirmed', () => erasures(org), (list) => list[0]?.status === 'confirmed');
    expect(record.erased.queuedJobs).toBeGreaterThanOrEqual(4);
    expect(await redisHits(encoded)).toEqual([]);
    expect(await redisHits(user)).toEqual([]);
  });

  it('refuses to create an organization for another region than the deployment’s', async () => {
    const refused = await runCli(t.suite.env, ['org', 'create', '--name', 'elsewhere', '--region', 'us']);
    expect(refused.code).toBe(1);
    expect(JSON.parse(refused.stderr)).toMatchObject({ error: 'invalid_request', message: expect.stringContaining('region') });
  });
});
