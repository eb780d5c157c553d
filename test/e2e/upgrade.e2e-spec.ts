import { createHmac, randomBytes } from 'node:crypto';
import { finished } from 'node:stream/promises';
import { Client } from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { DataSource } from 'typeorm';
import { messageKey } from '@foresight/events';
import { loadConfig, SqlExecutor } from '@foresight/platform';
import { MIGRATIONS } from '../../libs/platform/src/database/migrations';
import { MonthlyPartitionsService } from '../../libs/platform/src/database/monthly-partitions.service';
import { eventually } from '../support/eventually';
import { request } from '../support/http';
import { cliJson, type RunningProcess, startApi, startWorker } from '../support/processes';
import { recordingLogger } from '../support/recording-logger';
import { TestSuite } from '../support/suite';
import { learnablePopulation, settledModel, type TestEvent } from '../support/training';

/**
 * Upgrading a database that an earlier release created: the schema as it was before encryption at
 * rest, privacy, monitoring and user activity (migrations up to Predictions1764100000000), holding
 * what that release wrote, is brought up to date by today's `migrate` while a replica of the earlier
 * release keeps reading. README "Upgrading" states what a rolling upgrade guarantees; this checks it.
 */

const LAST_EARLIER_MIGRATION = 'Predictions1764100000000';
const ORG = 'org_upgradeupgrade01';
const TOKEN = `pat_prod_${randomBytes(32).toString('hex')}`;
const MODEL = 'mdl_upgradeupgrade01';

/** What the earlier release's API read on every request and for predictions (token lookup, models, a user's window). */
const EARLIER_READS = [
  {
    name: 'earlier.token',
    text: `SELECT t.id, t.organization_id, t.environment, t.scopes, t.expires_at, t.revoked_at, o.rate_limit_per_minute, o.burst_per_minute
             FROM api_tokens t JOIN organizations o ON o.id = t.organization_id WHERE t.secret_hash = $1`,
  },
  { name: 'earlier.models', text: `SELECT id, name, target_event, horizon_days, algorithm, labels, status, serving_version_id FROM models WHERE organization_id = $1 ORDER BY id` },
  {
    name: 'earlier.user-window',
    text: `SELECT (extract(epoch FROM e.occurred_at) * 1000)::float8 AS t, e.event, e.session_id, e.dwell_ms, e.hesitation_ms, e.scroll_depth
             FROM events e
            WHERE ((e.organization_id = $1 AND e.user_id = $2)
                OR (e.organization_id = $1 AND e.user_id IS NULL AND e.anonymous_id = ANY(ARRAY(SELECT anonymous_id FROM identities WHERE organization_id = $1 AND user_id = $2))))
              AND e.occurred_at >= $3 AND e.occurred_at < $4
            ORDER BY e.occurred_at, e.message_id`,
  },
  { name: 'earlier.event-count', text: `SELECT count(*)::int AS n FROM events WHERE organization_id = $1` },
] as const;

describe('upgrading a database written by an earlier release', () => {
  let suite: TestSuite;
  let api: RunningProcess | undefined;
  let worker: RunningProcess | undefined;
  const earlier = MIGRATIONS.slice(0, MIGRATIONS.findIndex((migration) => migration.name === LAST_EARLIER_MIGRATION) + 1);
  const later = MIGRATIONS.slice(earlier.length);
  const events = learnablePopulation(400, 100, { seed: 23 });

  beforeAll(async () => {
    suite = await TestSuite.create('upgrade', { migrate: false });
    const dataSource = new DataSource({ type: 'postgres', url: suite.env.DATABASE_URL, migrations: earlier, migrationsTableName: 'schema_migrations' });
    await dataSource.initialize();
    try {
      await dataSource.runMigrations({ transaction: 'each' });
      // The earlier `migrate` created the monthly partitions too.
      await new MonthlyPartitionsService(new SqlExecutor(dataSource, loadConfig(suite.env), recordingLogger().logger)).ensureAll();
      await writeAsEarlierRelease(dataSource, suite.env.TOKEN_PEPPER, events);
    } finally {
      await dataSource.destroy();
    }
  });

  afterAll(async () => {
    await worker?.stop();
    await api?.stop();
    await suite?.destroy();
  });

  it('starts from the earlier schema', async () => {
    expect(later.length).toBeGreaterThan(0);
    const applied = await suite.sql<{ name: string }>(`SELECT name FROM schema_migrations ORDER BY id`);
    expect(applied.map((row) => row.name)).toEqual(earlier.map((migration) => new migration().name));
    const [column] = await suite.sql<{ data_type: string }>(
      `SELECT data_type FROM information_schema.columns WHERE table_name = 'events' AND column_name = 'properties'`,
    );
    expect(column.data_type).toBe('jsonb');
  });

  it("migrates while the earlier release keeps reading: its reads never fail and keep answering what they answered before", async () => {
    const reader = new Client({ connectionString: suite.env.DATABASE_URL });
    await reader.connect();
    const hash = createHmac('sha256', suite.env.TOKEN_PEPPER).update(TOKEN).digest();
    const now = Date.now();
    const values: Record<(typeof EARLIER_READS)[number]['name'], unknown[]> = {
      'earlier.token': [hash],
      'earlier.models': [ORG],
      'earlier.user-window': [ORG, 'user-1', new Date(now - 60 * 86_400_000).toISOString(), new Date(now).toISOString()],
      'earlier.event-count': [ORG],
    };
    // Named statements, prepared once and re-executed, as the earlier release's serving reads were.
    const readAll = async () => {
      const answers: unknown[][] = [];
      for (const { name, text } of EARLIER_READS) answers.push((await reader.query({ name, text, values: values[name] })).rows);
      return answers;
    };
    const before = await readAll();
    expect(before.map((rows) => rows.length)).toEqual([1, 1, expect.any(Number), 1]);
    expect(before[2].length).toBeGreaterThan(0);

    const failures: string[] = [];
    let readsDuringMigration = 0;
    let migrating = true;
    const reading = (async () => {
      while (migrating) {
        try {
          const rows = await readAll();
          if (JSON.stringify(rows) !== JSON.stringify(before)) failures.push(`answer changed: ${JSON.stringify(rows).slice(0, 300)}`);
        } catch (error) {
          failures.push((error as Error).message);
        }
        readsDuringMigration++;
      }
    })();
    let result: { applied: string[]; partitions: string[] };
    try {
      result = await cliJson<{ applied: string[]; partitions: string[] }>(suite.env, ['migrate']);
    } finally {
      migrating = false;
      await reading;
    }
    const after = await readAll().finally(() => reader.end());

    expect(result.applied).toEqual(later.map((migration) => new migration().name));
    expect(failures).toEqual([]);
    expect(readsDuringMigration).toBeGreaterThan(0);
    expect(after).toEqual(before);
  });

  it('serves the earlier data with today’s API: tokens, ingestion with the stored dedupe keys, users, models and predictions', async () => {
    api = await startApi(suite.env);
    const call = <T = Record<string, unknown>>(path: string, method = 'GET', body?: unknown) =>
      request<T>(`${api!.baseUrl}${path}`, { token: TOKEN, method, body });

    expect(await call('/v1/health')).toMatchObject({ status: 200, body: { status: 'ok' } });
    // A messageId the earlier release stored is still known; a new event is accepted.
    expect(events[0].messageId).toBe('earlier-0');
    expect((await call('/v1/events', 'POST', events[0])).body).toMatchObject({ status: 'accepted', accepted: 0, duplicates: 1 });
    const fresh = { event: 'click', userId: 'user-1', timestamp: new Date().toISOString(), properties: { button: 'after-upgrade' } };
    expect((await call('/v1/events', 'POST', fresh)).body).toMatchObject({ status: 'accepted', accepted: 1, duplicates: 0 });

    // Rows written before encryption at rest still read back, properties included.
    const exported = await call<{ events: Array<{ event: string; properties: unknown }> }>('/v1/users/export?userId=user-0');
    expect(exported.status).toBe(200);
    const ownEvents = events.filter((e) => e.userId === 'user-0');
    expect(exported.body.events).toHaveLength(ownEvents.length);
    expect(exported.body.events.map((e) => e.properties)).toEqual(expect.arrayContaining(ownEvents.filter((e) => e.properties).map((e) => e.properties)));

    const models = await call<Array<{ id: string; status: string }>>('/v1/models');
    expect(models.body).toEqual([expect.objectContaining({ id: MODEL, status: 'untrained' })]);
    // A user known only from events the earlier release stored is a user (the upgrade back-filled user_activity).
    expect(await call('/v1/predict?userId=user-2')).toMatchObject({ status: 200, body: { userId: 'user-2', predictions: [] } });
    expect((await call('/v1/predict?userId=nobody')).status).toBe(404);

    // Training reads the earlier rows; the new version serves them.
    worker = await startWorker(suite.env);
    expect((await call('/v1/models/retrain', 'POST', { modelId: MODEL })).status).toBeLessThan(300);
    expect(await settledModel(api.baseUrl, TOKEN, MODEL, worker)).toMatchObject({ status: 'active', version: 1 });
    const predictions = await eventually('the trained model to serve', async () => {
      const served = (await call<{ predictions: unknown[] }>('/v1/predict?userId=user-2')).body.predictions;
      return served.length > 0 ? served : undefined;
    }, 10_000);
    expect(predictions).toEqual([expect.objectContaining({ model: 'checkout_7d', modelId: MODEL, version: 1 })]);
  });

  it("refuses duplicates across releases during a rolling upgrade: the earlier release's messageId claims and today's see each other", async () => {
    const call = (body: unknown) => request<{ accepted: number; duplicates: number }>(`${api!.baseUrl}/v1/events`, { token: TOKEN, method: 'POST', body });
    const event = (messageId: string) => ({ event: 'click', userId: 'user-1', messageId, properties: { button: 'rollout' } });
    // The database computes the key as ingestion does, for any messageId (the backfill relies on it).
    for (const messageId of ['earlier-0', 'ünïcødé 🙂 id', 'a'.repeat(128)]) {
      const [row] = await suite.sql<{ key: string }>(`SELECT encode(event_message_key($1, $2), 'hex') AS key`, [ORG, messageId]);
      expect(row.key).toBe(messageKey(ORG, messageId));
    }
    expect((await call(event('stored-by-today'))).body).toMatchObject({ accepted: 1, duplicates: 0 });

    const earlier = new Client({ connectionString: suite.env.DATABASE_URL });
    await earlier.connect();
    try {
      // The earlier release's bulk claim of a messageId today's release stored fails as a duplicate of its own key…
      await earlier.query('BEGIN');
      const copy = earlier.query(copyFrom('COPY event_message_ids (organization_id, message_id) FROM STDIN'));
      copy.end(`${ORG}\tstored-by-earlier\n${ORG}\tstored-by-today\n`);
      await expect(finished(copy)).rejects.toMatchObject({ code: '23505', constraint: 'event_message_ids_pkey' });
      await earlier.query('ROLLBACK');
      // …and its row-wise fallback claims only the new one, as if today's key were its own.
      const claimed = await earlier.query(
        `INSERT INTO event_message_ids (organization_id, message_id) SELECT * FROM unnest($1::text[], $2::text[]) ON CONFLICT DO NOTHING RETURNING message_id`,
        [[ORG, ORG], ['stored-by-earlier', 'stored-by-today']],
      );
      expect(claimed.rows).toEqual([{ message_id: 'stored-by-earlier' }]);
    } finally {
      await earlier.end();
    }
    // Today's release refuses what the earlier one claimed during the rollout.
    expect((await call([event('stored-by-earlier'), event('new-after-rollout')])).body).toMatchObject({ accepted: 1, duplicates: 1 });
  });
});

/** Rows as the earlier release's CLI and ingestion wrote them: an organization, its token hash, events with their dedupe keys, a model. */
async function writeAsEarlierRelease(dataSource: DataSource, pepper: string, events: TestEvent[]): Promise<void> {
  await dataSource.query(`INSERT INTO organizations (id, name, region) VALUES ($1, 'Upgraded', 'eu')`, [ORG]);
  await dataSource.query(
    `INSERT INTO api_tokens (id, organization_id, environment, scopes, secret_hash, hint) VALUES ('tok_upgradeupgrade01', $1, 'prod', '{ingest,read,admin}', $2, $3)`,
    [ORG, createHmac('sha256', pepper).update(TOKEN).digest(), TOKEN.slice(-4)],
  );
  events.forEach((event, index) => (event.messageId = `earlier-${index}`));
  for (let i = 0; i < events.length; i += 5000) {
    const batch = JSON.stringify(events.slice(i, i + 5000));
    // Typed columns lifted out of properties, which stay JSON, as the earlier ingestion did.
    await dataSource.query(
      `WITH batch AS (SELECT * FROM json_to_recordset($2::json) AS r("messageId" text, event text, "userId" text, timestamp timestamptz, properties jsonb)),
            keys AS (INSERT INTO event_message_ids (organization_id, message_id) SELECT $1, "messageId" FROM batch)
       INSERT INTO events (organization_id, message_id, event, user_id, occurred_at, received_at, screen, dwell_ms, properties)
       SELECT $1, "messageId", event, "userId", timestamp, timestamp, properties->>'screen', (properties->>'dwellMs')::integer, properties FROM batch`,
      [ORG, batch],
    );
  }
  await dataSource.query(
    `INSERT INTO models (id, organization_id, name, target_event, horizon_days, algorithm, labels) VALUES ($1, $2, 'checkout_7d', 'checkout', 7, 'logistic', '{unlikely,likely}')`,
    [MODEL, ORG],
  );
}
