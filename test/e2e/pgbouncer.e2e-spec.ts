import { derivedId } from '@foresight/platform';
import { eventually } from '../support/eventually';
import { type JsonResponse, request } from '../support/http';
import { PgBouncer } from '../support/pgbouncer';
import { cliJson, type RunningProcess, startApi, startWorker } from '../support/processes';
import { queuedWorkDone } from '../support/queues';
import { ServingKeeps } from '../support/serving-keeps';
import { type OrganizationWithToken, TestSuite } from '../support/suite';
import { Answers, idle, lookUpUser, predictRound } from '../support/traffic';
import { completedScoringRun, promotionRunsDone, settledModel } from '../support/training';
import { Receiver, verifySignature, type WebhookBody } from '../support/webhook-receiver';

const USERS_PER_ROUND = 30;
const ROUNDS = 3;
/** Longer than DATABASE_IDLE_TIMEOUT (1 s) and PgBouncer's server_idle_timeout (2 s). */
const IDLE_GAP_MS = 3_000;

interface Delivery {
  eventType: string;
  status: string;
}

/**
 * The whole lifecycle behind PgBouncer 1.18 in transaction pooling mode (DATABASE_POOL_MODE=transaction):
 * the CLI, the API and a separate worker all reach PostgreSQL only through it. Its 4 server connections
 * per database are shared by every client and recycled within seconds, so a statement prepared on one
 * server session is unknown on the next, and a session's state (SET, advisory locks) lands on a
 * connection someone else gets next. Users met 74 failed /predict of 200 here, and `migrate` took a
 * session-level advisory lock.
 */
describe('behind PgBouncer in transaction pooling mode', () => {
  let bouncer: PgBouncer;
  let suite: TestSuite;
  let env: Record<string, string>;
  let org: OrganizationWithToken;
  let api: RunningProcess;
  let worker: RunningProcess;
  let receiver: Receiver;
  let modelId: string;
  let webhook: { id: string; secret: string };
  /** Users the promotion's bulk scoring scored, each asked for once (first-time for the API). */
  let scored: string[];
  const answers = new Answers();
  const token = () => org.token.secret;
  const url = (path: string) => `${api.baseUrl}/v1${path}`;

  beforeAll(async () => {
    bouncer = await PgBouncer.start({ poolSize: 4, serverIdleTimeoutSeconds: 2, serverLifetimeSeconds: 5 });
    suite = await TestSuite.create('pgbouncer', { migrate: false });
    env = {
      ...suite.env,
      DATABASE_URL: bouncer.urlFor(suite.env.DATABASE_URL),
      DATABASE_POOL_MODE: 'transaction',
      DATABASE_IDLE_TIMEOUT: '1s',
      WEBHOOK_ALLOWED_NETWORKS: '127.0.0.0/8',
      WEBHOOK_RETRY_SCHEDULE: '1s',
      SCORING_CHUNK_USERS: '40',
    };
    receiver = await Receiver.start(() => 200);
  });

  afterAll(async () => {
    await Promise.all([api?.stop(), worker?.stop(), receiver?.close()]);
    await bouncer?.stop();
    await suite?.destroy();
  });

  afterEach(() => {
    // Every answer the test got was the one expected, and neither process logged an error; the count says what that covered.
    expect(answers.problems({ api, worker })).toEqual([]);
    console.log(`pgbouncer suite: ${answers.total} answers so far, all as expected`);
  });

  it('migrates through PgBouncer, twice at once, leaving no advisory lock behind', async () => {
    const runs = await Promise.all([cliJson<unknown>(env, ['migrate']), cliJson<unknown>(env, ['migrate'])]);
    expect(runs).toHaveLength(2);
    // A session-level lock would stay with whichever server connection took it, held for whoever gets that connection next.
    expect(await suite.sql(`SELECT 1 FROM pg_locks l JOIN pg_database d ON d.oid = l.database WHERE l.locktype = 'advisory' AND d.datname = current_database()`)).toEqual([]);
    await cliJson(env, ['migrate']);
    const [{ migrations }] = await suite.sql<{ migrations: string }>('SELECT count(*) AS migrations FROM schema_migrations');
    expect(Number(migrations)).toBeGreaterThan(0);
  });

  it('seeds with the CLI, trains in a separate worker, and bulk-scores the promotion', async () => {
    org = await cliJson<OrganizationWithToken>(env, ['org', 'create', '--name', 'pgbouncer', '--rate-limit', '100000', '--burst', '200000']);
    await cliJson(env, ['demo', 'seed', '--org', org.organization.id, '--users', '400', '--days', '45']);
    [api, worker] = await Promise.all([startApi(env), startWorker(env)]);
    const subscribed = await answers.expect(
      'POST /v1/webhooks',
      request<{ id: string; secret: string }>(url('/webhooks'), { token: token(), method: 'POST', body: { url: receiver.url, events: ['model.retrained', 'prediction.updated', 'audience.entered'] } }),
    );
    webhook = subscribed.body;
    const model = await answers.expect('POST /v1/models', request<{ id: string }>(url('/models'), { token: token(), method: 'POST', body: { name: 'checkout_7d', targetEvent: 'checkout', algorithm: 'logistic' } }));
    modelId = model.body.id;
    await answers.expect('POST /v1/models/retrain', request(url('/models/retrain'), { token: token(), method: 'POST', body: { modelId } }));
    expect(await settledModel(api.baseUrl, token(), modelId, worker)).toMatchObject({ status: 'active', lastError: null });
    await promotionRunsDone(suite, org.organization.id);
    scored = (await suite.sql<{ user_id: string }>(`SELECT DISTINCT user_id FROM predictions WHERE organization_id = $1 ORDER BY 1`, [org.organization.id])).map((r) => r.user_id);
    expect(scored.length).toBeGreaterThanOrEqual(ROUNDS * USERS_PER_ROUND * 2);
  }, 240_000);

  it("delivers the retrain's model.retrained, staged with its version through the pooler, once and signed, and leaves the outbox empty", async () => {
    const [{ servingVersionId }] = await suite.sql<{ servingVersionId: string }>('SELECT serving_version_id AS "servingVersionId" FROM models WHERE id = $1', [modelId]);
    const retrained = () => receiver.requests.filter((received) => (JSON.parse(received.body) as WebhookBody).type === 'model.retrained');
    await eventually('model.retrained at the receiver', () => (retrained().length > 0 ? true : undefined));
    // Everything the retrain set off has run (its announcement, the promotion's scoring and theirs, every delivery): a second delivery would show by now.
    await queuedWorkDone(env, ['training', 'scoring', 'domain-events', 'webhooks'], (data) => data.organizationId === org.organization.id);
    const [delivered, ...again] = retrained();
    expect(again).toEqual([]);
    expect(JSON.parse(delivered.body)).toMatchObject({
      id: derivedId('evt', `${org.organization.id}/model.retrained/${servingVersionId}`),
      data: { modelId, version: 1, promoted: true },
    });
    expect(verifySignature(webhook.secret, delivered)).toBe(true);
    expect(await suite.sql('SELECT event_id FROM domain_event_outbox WHERE organization_id = $1', [org.organization.id])).toEqual([]);
  });

  it('serves first-time predictions, single and batch, across idle gaps longer than every idle timeout', async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const users = scored.slice(round * USERS_PER_ROUND * 2, (round + 1) * USERS_PER_ROUND * 2);
      // Half asked one by one, the other half only in the batch: every user is new to the API's cache.
      await predictRound(api.baseUrl, token(), users.slice(0, USERS_PER_ROUND), answers);
      await answers.expect(`POST /v1/predict/batch (round ${round})`, request(url('/predict/batch'), { token: token(), method: 'POST', body: { userIds: users.slice(USERS_PER_ROUND) } }));
      await idle(IDLE_GAP_MS);
    }
    expect(answers.total).toBeGreaterThanOrEqual(ROUNDS * (USERS_PER_ROUND + 2));
  }, 120_000);

  it('exports predictions and a user, monitors the model, and erases the user', async () => {
    const since = new Date().toISOString().slice(0, 10);
    const exported = await answers.expect('GET /v1/export/predictions', request<Array<{ userId: string }>>(url(`/export/predictions?since=${since}&limit=100000`), { token: token() }));
    expect(new Set(exported.body.map((p) => p.userId)).size).toBe(scored.length);
    await idle(IDLE_GAP_MS);
    const [user] = scored;
    await lookUpUser(api.baseUrl, token(), user, answers);
    expect(await cliJson<{ models: number }>(env, ['monitor', 'run'])).toMatchObject({ models: 1 });
    await answers.expect('GET /v1/models/monitor/:id', request(url(`/models/monitor/${modelId}`), { token: token() }));
    await idle(IDLE_GAP_MS);
    await answers.expect('DELETE /v1/users', request(url(`/users?userId=${encodeURIComponent(user)}`), { token: token(), method: 'DELETE' }));
    await answers.expect('GET /v1/users/export after erasure', request(url(`/users/export?userId=${encodeURIComponent(user)}`), { token: token() }), 404);
  }, 120_000);

  it('runs a bulk scoring run on request in the worker, recomputes an audience, and delivers webhooks', async () => {
    const audience = await answers.expect('POST /v1/audiences', request<{ id: string }>(url('/audiences'), { token: token(), method: 'POST', body: { name: 'top decile', modelId, label: 'likely', rule: { topPercent: 10 } } }));
    const run = await completedScoringRun(api.baseUrl, token(), modelId, answers);
    // The erased user is no longer active; everyone else is scored again.
    expect(run).toMatchObject({ scored: scored.length - 1, total: scored.length - 1 });

    // The run's audience: the top tenth of the scored users, listed through the pooler page by page, announced once.
    const expectedSize = Math.ceil(((scored.length - 1) * 10) / 100);
    await eventually('the audience computed by the run', async () => {
      const view = await answers.expect('GET /v1/audiences/:id', request<{ size: number | null }>(url(`/audiences/${audience.body.id}`), { token: token() }));
      return view.body.size === expectedSize ? true : undefined;
    });
    const members: string[] = [];
    for (let next: string | undefined = url(`/audiences/${audience.body.id}/members?limit=7`); next; ) {
      const page: JsonResponse<Array<{ userId: string }>> = await answers.expect('GET /v1/audiences/:id/members', request<Array<{ userId: string }>>(next, { token: token() }));
      members.push(...page.body.map((member) => member.userId));
      next = /<([^>]+)>;\s*rel="next"/.exec(page.headers.get('link') ?? '')?.[1];
      await idle(IDLE_GAP_MS / 3);
    }
    expect(new Set(members).size).toBe(expectedSize);
    expect(members).not.toContain(scored[0]);
    const entered = await eventually('audience.entered delivered', () => {
      const users = receiver.bodies().filter((b) => b.type === 'audience.entered').flatMap((b) => b.data.userIds as string[]);
      return users.length >= expectedSize ? users : undefined;
    });
    expect(entered.sort()).toEqual(members.sort());

    await idle(IDLE_GAP_MS);
    await answers.expect('POST /v1/webhooks/:id/test', request(url(`/webhooks/${webhook.id}/test`), { token: token(), method: 'POST' }));
    const delivered = await eventually('model.retrained and webhook.test delivered', async () => {
      const log = await answers.expect('GET /v1/webhooks/:id/deliveries', request<Delivery[]>(url(`/webhooks/${webhook.id}/deliveries`), { token: token() }));
      const succeeded = new Set(log.body.filter((d) => d.status === 'succeeded').map((d) => d.eventType));
      return succeeded.has('model.retrained') && succeeded.has('webhook.test') ? log.body : undefined;
    });
    expect(delivered.filter((d) => d.status !== 'succeeded')).toEqual([]);
    expect(receiver.bodies().map((b) => b.type)).toEqual(expect.arrayContaining(['model.retrained', 'webhook.test']));
  }, 180_000);

  it('keeps the windows serving reads through the pooler, and serves them with the events stored since', async () => {
    const target = {
      baseUrl: api.baseUrl,
      token: token(),
      answers,
      keptWindows: async (user: string) => (await suite.sql('SELECT 1 FROM user_windows WHERE organization_id = $1 AND user_id = $2', [org.organization.id, user])).length,
    };
    const keeps = await ServingKeeps.start(target, 'pooled');
    await keeps.compare(target);
    await idle(IDLE_GAP_MS);
    await keeps.compare(target);
  });
});
