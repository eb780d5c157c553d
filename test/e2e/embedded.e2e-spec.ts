import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Queue } from 'bullmq';
import { type DomainEvent, queuePrefix, QUEUES } from '@foresight/platform';
import { embeddedSql } from '../support/embedded-sql';
import { eventually } from '../support/eventually';
import { request } from '../support/http';
import { cliJson, type RunningProcess, startApi } from '../support/processes';
import { queuedWorkDone } from '../support/queues';
import { REDIS_URL } from '../support/services';
import { deleteRedisKeys, type OrganizationWithToken } from '../support/suite';
import { completedScoringRun, learnablePopulation, sendEvents, settledModel } from '../support/training';
import { Receiver, verifySignature, type WebhookBody } from '../support/webhook-receiver';

/** The zero-configuration path of the README: no DATABASE_URL, PGlite in DATA_DIR, worker inline. */
describe('embedded mode (PGlite)', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'foresight-embedded-'));
  const env = {
    DATA_DIR: dataDir,
    REDIS_URL,
    REDIS_PREFIX: `e2e:embedded:${randomBytes(4).toString('hex')}:`,
    SCORING_CHUNK_USERS: '20',
    WEBHOOK_ALLOWED_NETWORKS: '127.0.0.0/8',
  };
  let api: RunningProcess | undefined;
  let created: OrganizationWithToken | undefined;
  let modelId: string | undefined;
  let receiver: Receiver | undefined;

  afterAll(async () => {
    await api?.stop();
    await receiver?.close();
    rmSync(dataDir, { recursive: true, force: true });
    await deleteRedisKeys(env.REDIS_PREFIX);
  });

  it('creates an organization with the CLI, serves it, and lets the CLI reach the running database', async () => {
    created = await cliJson<OrganizationWithToken>(env, ['org', 'create', '--name', 'Embedded']);
    api = await startApi(env);
    const health = await request(`${api.baseUrl}/v1/health`, { token: created.token.secret });
    expect(health).toMatchObject({ status: 200, body: { status: 'ok' } });

    // While the API owns the PGlite directory, the CLI goes through its socket.
    const second = await cliJson<{ token: { secret: string } }>(env, ['token', 'create', '--org', created.organization.id, '--env', 'dev', '--scopes', 'read']);
    expect((await request(`${api.baseUrl}/v1/health`, { token: second.token.secret })).status).toBe(200);
    const listed = await cliJson<{ tokens: unknown[] }>(env, ['token', 'list', '--org', created.organization.id]);
    expect(listed.tokens).toHaveLength(2);

    // PGlite takes events by INSERT … unnest (no COPY): every column, the numeric properties' jsonb included.
    const event = { event: 'add_to_cart', userId: 'embedded-user', properties: { items: 3, sku: 'sku-1', dwellMs: 900 } };
    const stored = await request(`${api.baseUrl}/v1/events`, { token: created.token.secret, method: 'POST', body: [event] });
    expect(stored).toMatchObject({ status: 200, body: { accepted: 1, duplicates: 0 } });
    const exported = await request<{ events: Array<{ event: string; properties: unknown }> }>(`${api.baseUrl}/v1/users/export?userId=embedded-user`, { token: created.token.secret });
    expect(exported.body.events).toEqual([expect.objectContaining({ event: 'add_to_cart', properties: event.properties })]);
  });

  // The README's quick start: the promotion's bulk scoring writes the prediction log by INSERT here
  // (PGlite's socket loses protocol sync on COPY FROM STDIN, and the whole service hung after a first
  // training), and with chunks of 20 users it commits chunks after reading the window (PGlite runs one
  // transaction at a time: chunks committed beside the open cursor hung the run).
  it('trains a model, bulk-scores every active user after the promotion and on request, then serves single and batch predictions and exports them', async () => {
    if (!api || !created) throw new Error('the first test did not start the API');
    const { baseUrl } = api;
    const token = created.token.secret;
    await sendEvents(baseUrl, token, learnablePopulation(150, 60, { intentShiftDays: 14 }));
    const model = await request<{ id: string }>(`${baseUrl}/v1/models`, {
      token, method: 'POST', body: { name: 'pricing_view_7d', targetEvent: 'screen_view', horizonDays: 7, algorithm: 'logistic' },
    });
    modelId = model.body.id;
    await request(`${baseUrl}/v1/models/retrain`, { token, method: 'POST', body: { modelId } });
    expect(await settledModel(baseUrl, token, modelId, api)).toMatchObject({ status: 'active' });

    const audience = await request<{ id: string }>(`${baseUrl}/v1/audiences`, { token, method: 'POST', body: { name: 'top decile', modelId: model.body.id, label: 'likely', rule: { topPercent: 10 } } });
    expect(audience.status).toBe(200);
    const run = await completedScoringRun(baseUrl, token, model.body.id);
    expect(run.total).toBeGreaterThan(100);
    expect(run.scored).toBe(run.total);
    // The run recomputes the audience in the inline worker: the top tenth of the scored users.
    const members = async (at: string) => {
      const view = await eventually('the audience computed by the run', async () => {
        const polled = await request<{ size: number | null }>(`${at}/v1/audiences/${audience.body.id}`, { token });
        return polled.body.size === Math.ceil(run.scored / 10) ? polled.body : undefined;
      });
      const listed = await request<Array<{ userId: string; confidence: number }>>(`${at}/v1/audiences/${audience.body.id}/members?limit=1000`, { token });
      expect(listed.body).toHaveLength(view.size as number);
      return listed.body;
    };
    const before = await members(baseUrl);

    expect(await request(`${baseUrl}/v1/predict?userId=user-1`, { token })).toMatchObject({ status: 200, body: { predictions: [expect.objectContaining({ modelId: model.body.id })] } });
    // The batch route reads all histories in one read-only transaction with JIT off (SET LOCAL jit): PGlite takes it too.
    const batch = await request<{ results: Array<{ userId: string }> }>(`${baseUrl}/v1/predict/batch`, { token, method: 'POST', body: { userIds: ['user-2', 'nobody', 'user-3'] } });
    expect(batch).toMatchObject({
      status: 200,
      body: { results: [{ userId: 'user-2', predictions: [expect.objectContaining({ modelId: model.body.id })] }, { userId: 'nobody', error: 'not_found' }, { userId: 'user-3' }] },
    });
    const exported = await request<Array<{ userId: string }>>(`${baseUrl}/v1/export/predictions?since=${new Date().toISOString().slice(0, 10)}&limit=100000`, { token });
    expect(exported.status).toBe(200);
    expect(new Set(exported.body.map((p) => p.userId)).size).toBeGreaterThanOrEqual(run.scored);

    // Restarted on the same data directory: the audience and its members are still there.
    await api.stop();
    api = await startApi(env);
    expect(await members(api.baseUrl)).toEqual(before);
  }, 300_000);

  // The outbox on PGlite across a crash: the event committed with its version, its job never run (the
  // announcements' queue paused), then the process killed and Redis emptied, as a crash and a Redis
  // without its data leave it. After the restart, the resumer of the inline worker queues it again.
  it('delivers once, after the service is killed and restarts, a model.retrained committed to the outbox whose job Redis lost', async () => {
    if (!api || !created || !modelId) throw new Error('the earlier tests did not train a model');
    const token = created.token.secret;
    const organizationId = created.organization.id;
    const hooks = await Receiver.start(() => 200);
    receiver = hooks;
    const webhook = await request<{ secret: string }>(`${api.baseUrl}/v1/webhooks`, { token, method: 'POST', body: { url: hooks.url, events: ['model.retrained'] } });
    expect(webhook.status).toBe(200);
    const announcements = new Queue<DomainEvent>(QUEUES.domainEvents, { connection: { url: REDIS_URL }, prefix: queuePrefix('server', env.REDIS_PREFIX) });
    try {
      await announcements.pause();
      await request(`${api.baseUrl}/v1/models/retrain`, { token, method: 'POST', body: { modelId } });
      expect(await settledModel(api.baseUrl, token, modelId, api)).toMatchObject({ status: 'active' });
    } finally {
      await announcements.close();
    }
    const retrainedInOutbox = () =>
      embeddedSql<{ event: DomainEvent }>(dataDir, `SELECT event FROM domain_event_outbox WHERE organization_id = $1 AND event->>'type' = 'model.retrained'`, [organizationId]);
    const [{ event }] = await retrainedInOutbox();
    expect(event).toMatchObject({ type: 'model.retrained', data: { modelId, version: 2 } });
    expect(hooks.requests).toEqual([]);

    await api.kill();
    await deleteRedisKeys(env.REDIS_PREFIX);
    api = await startApi(env);

    // The resumer looks once a minute for events older than a minute: a few rounds on a busy machine.
    await eventually('the model.retrained delivered after the restart', () => (hooks.requests.length > 0 ? true : undefined), 5 * 60_000);
    await eventually('its outbox row taken out by the fan-out', async () => ((await retrainedInOutbox()).length === 0 ? true : undefined));
    // Every announcement and delivery of the organization has run: a second delivery would show by now.
    await queuedWorkDone(env, [QUEUES.domainEvents, QUEUES.webhooks], (data) => data.organizationId === organizationId);
    const [delivered, ...again] = hooks.requests;
    expect(again).toEqual([]);
    expect(JSON.parse(delivered.body) as WebhookBody).toEqual({ id: event.id, type: 'model.retrained', createdAt: event.createdAt, data: event.data });
    expect(verifySignature(webhook.body.secret, delivered)).toBe(true);
    // The version the event announces survived the kill too, and no run stored another.
    expect(await embeddedSql(dataDir, `SELECT version FROM model_versions WHERE model_id = $1 ORDER BY version`, [modelId])).toEqual([{ version: 1 }, { version: 2 }]);
  }, 600_000);
});
