import { createHash } from 'node:crypto';
import { eventually } from '../support/eventually';
import { request } from '../support/http';
import { PgBouncer } from '../support/pgbouncer';
import { cliJson, type RunningProcess, startApi, startWorker } from '../support/processes';
import { StreamingReplica } from '../support/replica';
import { ADMIN_DATABASE_URL } from '../support/services';
import { type OrganizationWithToken, TestSuite } from '../support/suite';
import { Answers } from '../support/traffic';
import { completedScoringRun, promotionRunsDone, settledModel } from '../support/training';

/** The application_name of the read replica's pool (libs/platform/src/database/sql/read-replica.ts). */
const READ_APPLICATION = 'foresight-read';

/**
 * DATABASE_READ_URL at a real streaming replica of the test PostgreSQL. The replica logs every
 * statement with its client's application_name, so the suite sees which reads it served: training's,
 * the export's and monitoring's. Answers through the replica equal the primary's (a second API
 * without DATABASE_READ_URL), and a replica that lags more than DATABASE_READ_MAX_LAG is not read.
 * Last, a worker behind PgBouncer in transaction mode on both, as a platform team's pooler fronts each.
 */
describe('reads on a streaming replica (DATABASE_READ_URL)', () => {
  let suite: TestSuite;
  let org: OrganizationWithToken;
  let replica: StreamingReplica;
  let database: string;
  let readEnv: Record<string, string>;
  /** Without DATABASE_READ_URL: every read on the primary. */
  let primaryApi: RunningProcess;
  /**
   * DATABASE_READ_URL at the replica, with a DATABASE_READ_MAX_LAG no lag here reaches: it keeps reading
   * the replica (the replica lags for a moment whenever WAL arrives, and this cluster is shared).
   */
  let replicaApi: RunningProcess;
  let worker: RunningProcess;
  let modelId: string;
  const answers = new Answers();
  const token = () => org.token.secret;
  const since = () => new Date().toISOString().slice(0, 10);
  /** The export from one API process: its rows and a digest of its exact bytes (short enough for a failure message). */
  const exported = async (api: RunningProcess): Promise<{ rows: number; sha256: string }> => {
    const response = await fetch(`${api.baseUrl}/v1/export/predictions?since=${since()}&limit=100000`, { headers: { authorization: `Bearer ${token()}` } });
    const body = await response.text();
    if (response.status !== 200) answers.wrong(`GET /v1/export/predictions: ${response.status} ${body.slice(0, 200)}`);
    return { rows: (JSON.parse(body) as unknown[]).length, sha256: createHash('sha256').update(body).digest('hex') };
  };
  /** Users in the export, each once. */
  const exportedUsers = async () =>
    [...new Set((await request<Array<{ userId: string }>>(`${primaryApi.baseUrl}/v1/export/predictions?since=${since()}&limit=100000`, { token: token() })).body.map((p) => p.userId))];
  /** Waits until the replica logged, since `mark`, a statement of the read replica's pool matching `pattern`. */
  const replicaRan = (what: string, pattern: RegExp, mark: number) =>
    eventually(`the replica to log ${what}`, () => replica.statements(database, READ_APPLICATION, mark).find((statement) => pattern.test(statement)), 10_000);

  beforeAll(async () => {
    suite = await TestSuite.create('read_replica');
    database = new URL(suite.env.DATABASE_URL).pathname.slice(1);
    org = await suite.createOrganization('replica', ['--rate-limit', '100000', '--burst', '200000']);
    await cliJson(suite.env, ['demo', 'seed', '--org', org.organization.id, '--users', '300', '--days', '30']);
    replica = await StreamingReplica.start();
    readEnv = { ...suite.env, DATABASE_READ_URL: replica.urlFor(suite.env.DATABASE_URL), DATABASE_READ_MAX_LAG: '1h' };
    [primaryApi, replicaApi, worker] = await Promise.all([startApi(suite.env), startApi(readEnv), startWorker(readEnv)]);
  }, 120_000);

  afterAll(async () => {
    await Promise.all([primaryApi?.stop(), replicaApi?.stop(), worker?.stop()]);
    await replica?.stop();
    await suite?.destroy();
  });

  afterEach(() => {
    expect(answers.problems({ primaryApi, replicaApi, worker })).toEqual([]);
  });

  it("trains from the replica: the worker's training and bulk-scoring reads run there", async () => {
    const mark = replica.mark();
    const model = await answers.expect('POST /v1/models', request<{ id: string }>(`${replicaApi.baseUrl}/v1/models`, { token: token(), method: 'POST', body: { name: 'checkout_7d', targetEvent: 'checkout', algorithm: 'logistic' } }));
    modelId = model.body.id;
    await answers.expect('POST /v1/models/retrain', request(`${replicaApi.baseUrl}/v1/models/retrain`, { token: token(), method: 'POST', body: { modelId } }));
    expect(await settledModel(replicaApi.baseUrl, token(), modelId, worker)).toMatchObject({ status: 'active', lastError: null });
    await promotionRunsDone(suite, org.organization.id);
    // Training reads every user's history of events; the promotion's bulk scoring reads the windows it keeps.
    await replicaRan("training's read of the events", /\bFROM\b[\s\S]*\bevents\b/i, mark);
  }, 240_000);

  it('serves the export and monitoring from the replica, with the same answers as the primary', async () => {
    await replica.caughtUp();
    let mark = replica.mark();
    const [fromReplica, fromPrimary] = [await exported(replicaApi), await exported(primaryApi)];
    expect(fromReplica.rows).toBeGreaterThan(0);
    expect(fromReplica).toEqual(fromPrimary);
    await replicaRan("the export's read of the prediction log", /\bFROM predictions\b/i, mark);
    // The pool's connections are there under their name, in the suite's database.
    const [{ connections }] = await replica.query<{ connections: number }>(
      'postgres',
      'SELECT count(*)::int AS connections FROM pg_stat_activity WHERE datname = $1 AND application_name = $2',
      [database, READ_APPLICATION],
    );
    expect(connections).toBeGreaterThan(0);

    // Served predictions make monitoring's live figures; then a monitoring run by the CLI, with the replica configured.
    const users = await exportedUsers();
    for (const userId of users.slice(0, 40)) await answers.expect('GET /v1/predict', request(`${primaryApi.baseUrl}/v1/predict?userId=${encodeURIComponent(userId)}`, { token: token() }));
    await replica.caughtUp();
    mark = replica.mark();
    expect(await cliJson<{ models: number }>(readEnv, ['monitor', 'run'])).toMatchObject({ models: 1 });
    await replicaRan("monitoring's read of the prediction log", /\bFROM predictions\b/i, mark);
    await replica.caughtUp();
    for (const path of [`/v1/models/monitor/${modelId}`, `/v1/models/monitor/${modelId}/history`, `/v1/users/export?userId=${encodeURIComponent(users[0])}`]) {
      const [a, b] = [
        await answers.expect(path, request<Record<string, unknown>>(`${replicaApi.baseUrl}${path}`, { token: token() })),
        await answers.expect(path, request<Record<string, unknown>>(`${primaryApi.baseUrl}${path}`, { token: token() })),
      ];
      // A user's export says when it was made; everything else is the same.
      expect({ ...a.body, exportedAt: undefined }).toEqual({ ...b.body, exportedAt: undefined });
    }
  }, 120_000);

  it('reads a replica that lags within DATABASE_READ_MAX_LAG, and the primary once it lags beyond', async () => {
    // The same reads with a small bound: this process leaves a replica 2 s behind for the primary.
    const strict = await startApi({ ...readEnv, DATABASE_READ_MAX_LAG: '2s' });
    try {
      await replica.caughtUp();
      const before = await exported(primaryApi);
      expect(await exported(replicaApi)).toEqual(before);
      expect(await exported(strict)).toEqual(before);

      await replica.pauseReplay();
      const logged = async () => Number((await suite.sql<{ n: string }>('SELECT count(*) AS n FROM predictions'))[0].n);
      const rowsBefore = await logged();
      // New rows on the primary: the served predictions of users no process has answered yet are logged.
      const fresh = (await exportedUsers()).slice(100, 120);
      for (const userId of fresh) await answers.expect('GET /v1/predict', request(`${primaryApi.baseUrl}/v1/predict?userId=${encodeURIComponent(userId)}`, { token: token() }));
      // One model: one logged row per user, written by the API's log in batches.
      await eventually('the new predictions to be logged on the primary', async () => ((await logged()) === rowsBefore + fresh.length ? true : undefined));
      const after = await exported(primaryApi);
      expect(after.rows).toBe(before.rows + fresh.length);

      // (a) Lag within the bound: the replica answers, without the rows it has not replayed yet.
      expect(await exported(replicaApi)).toEqual(before);
      // (b) Lag beyond 2 s: once the replica's state is looked at again, the primary answers, with the new rows.
      await eventually('reads to fall back to the primary', async () => ((await exported(strict)).sha256 === after.sha256 ? true : undefined), 30_000);
      const [{ n }] = await replica.query<{ n: string }>(database, 'SELECT count(*) AS n FROM predictions');
      expect(Number(n)).toBe(rowsBefore);

      // Caught up again, the replica serves again (once the process looks at its state again).
      await replica.resumeReplay();
      await replica.caughtUp();
      await eventually('reads to return to the replica', async () => {
        const mark = replica.mark();
        expect(await exported(strict)).toEqual(after);
        return replica.statements(database, READ_APPLICATION, mark).some((statement) => /\bFROM predictions\b/i.test(statement)) ? true : undefined;
      }, 30_000);
    } finally {
      await replica.resumeReplay();
      await strict.stop();
    }
  }, 120_000);

  it('trains and bulk-scores with PgBouncer in transaction mode in front of both the primary and the replica', async () => {
    const [toPrimary, toReplica] = await Promise.all([PgBouncer.start(), PgBouncer.start({ target: replica.urlFor(ADMIN_DATABASE_URL) })]);
    try {
      const pooled = {
        ...readEnv,
        DATABASE_URL: toPrimary.urlFor(suite.env.DATABASE_URL),
        DATABASE_READ_URL: toReplica.urlFor(readEnv.DATABASE_READ_URL),
        DATABASE_POOL_MODE: 'transaction',
      };
      await worker.stop();
      worker = await startWorker(pooled);
      const before = await answers.expect('GET /v1/models/:id', request<{ lastRetrained: string }>(`${primaryApi.baseUrl}/v1/models/${modelId}`, { token: token() }));
      const mark = replica.mark();
      await answers.expect('POST /v1/models/retrain', request(`${replicaApi.baseUrl}/v1/models/retrain`, { token: token(), method: 'POST', body: { modelId } }));
      const retrained = await settledModel(replicaApi.baseUrl, token(), modelId, worker, 180_000);
      expect(retrained).toMatchObject({ status: 'active', lastError: null });
      expect(retrained.lastRetrained).not.toBe(before.body.lastRetrained);
      await replicaRan("training's read of the events, through PgBouncer", /\bFROM\b[\s\S]*\bevents\b/i, mark);

      const run = await completedScoringRun(replicaApi.baseUrl, token(), modelId, answers);
      expect(run.scored).toBe(run.total);
      expect(run.total).toBeGreaterThan(0);
      // Each active user once among the run's rows in the prediction log.
      const rows = await suite.sql<{ users: string; rows: string }>('SELECT count(DISTINCT user_id) AS users, count(*) AS rows FROM predictions WHERE scoring_run = $1', [run.id]);
      expect(rows).toEqual([{ users: String(run.total), rows: String(run.total) }]);
    } finally {
      // The worker first: a pooler gone under its connections is not what this test is about.
      await worker.stop();
      await Promise.all([toPrimary.stop(), toReplica.stop()]);
    }
  }, 300_000);
});
