import { Redis } from 'ioredis';
import { eventually } from '../support/eventually';
import { request } from '../support/http';
import { type RunningProcess, startApi, startWorker } from '../support/processes';
import { queuedWorkDone } from '../support/queues';
import { type OrganizationWithToken, TestSuite } from '../support/suite';
import { learnablePopulation, sendEvents } from '../support/training';
import { type Answer, Receiver, verifySignature } from '../support/webhook-receiver';

interface Delivery {
  id: string;
  eventId: string;
  eventType: string;
  status: string;
  attempts: number;
  lastResponseCode: number | null;
  lastError: string | null;
  lastLatencyMs: number | null;
  deliveredAt: string | null;
}

describe('webhooks', () => {
  let suite: TestSuite;
  let api: RunningProcess;
  let worker: RunningProcess;
  let redis: Redis;
  let env: Record<string, string>;
  const receivers: Receiver[] = [];

  beforeAll(async () => {
    suite = await TestSuite.create('webhooks');
    env = {
      ...suite.env,
      // Shortened schedule (three retries a second apart) and a long timeout, so a hanging receiver stays in flight.
      WEBHOOK_RETRY_SCHEDULE: '1s,1s,1s',
      WEBHOOK_TIMEOUT_MS: '30000',
      WEBHOOK_ALLOWED_NETWORKS: '127.0.0.0/8',
    };
    api = await startApi(env);
    worker = await startWorker(env);
    redis = new Redis(suite.env.REDIS_URL);
  });

  afterAll(async () => {
    // Hanging receivers let go first, so the worker's graceful stop does not wait for their timeouts.
    await Promise.all(receivers.map((r) => r.close()));
    redis?.disconnect();
    await worker?.stop();
    await api?.stop();
    await suite?.destroy();
  });

  const receiver = async (answer: Answer) => {
    const started = await Receiver.start(answer);
    receivers.push(started);
    return started;
  };
  const as = (org: OrganizationWithToken) => ({ token: org.token.secret });
  const subscribe = (org: OrganizationWithToken, body: unknown) =>
    request<{ id: string; url: string; events: string[]; secret: string }>(`${api.baseUrl}/v1/webhooks`, {
      ...as(org),
      method: 'POST',
      body,
    });
  const deliveries = async (org: OrganizationWithToken, webhookId: string) =>
    (await request<Delivery[]>(`${api.baseUrl}/v1/webhooks/${webhookId}/deliveries`, as(org))).body;
  /** Waits until the organization's training, its announcements and the webhook's deliveries have all run. */
  const workDone = (org: OrganizationWithToken, webhookId: string) =>
    queuedWorkDone(suite.env, ['training', 'scoring', 'domain-events', 'webhooks'], (data) => data.organizationId === org.organization.id || data.webhookId === webhookId);
  /** A model whose target never occurs: its retrain fails fast and announces model.failed. */
  const failingRetrain = async (org: OrganizationWithToken, name: string) => {
    const model = await request<{ id: string }>(`${api.baseUrl}/v1/models`, { ...as(org), method: 'POST', body: { name, targetEvent: 'never_happens' } });
    expect((await request(`${api.baseUrl}/v1/models/retrain`, { ...as(org), method: 'POST', body: { modelId: model.body.id } })).status).toBe(200);
    return model.body.id;
  };

  it('delivers one signed model.retrained for a retrain, which the receiver verifies', async () => {
    const org = await suite.createOrganization('Retrained');
    await sendEvents(api.baseUrl, org.token.secret, learnablePopulation(200, 60));
    const hooks = await receiver(() => 200);
    const webhook = await subscribe(org, { url: hooks.url, events: ['model.retrained'] });
    expect(webhook.status).toBe(200);
    const model = await request<{ id: string }>(`${api.baseUrl}/v1/models`, {
      ...as(org),
      method: 'POST',
      body: { name: 'checkout_hooks', targetEvent: 'checkout', algorithm: 'logistic' },
    });
    await request(`${api.baseUrl}/v1/models/retrain`, { ...as(org), method: 'POST', body: { modelId: model.body.id } });

    const [delivery] = await eventually('a succeeded delivery', async () => {
      const log = await deliveries(org, webhook.body.id);
      return log.some((d) => d.status === 'succeeded') ? log : undefined;
    }, 120_000);
    // A duplicate (a re-run training, fan-out or delivery) would have shown once the organization's jobs are done.
    await workDone(org, webhook.body.id);
    expect(hooks.requests).toHaveLength(1);
    const [received] = hooks.requests;
    expect(verifySignature(webhook.body.secret, received)).toBe(true);
    expect(verifySignature(`${webhook.body.secret}x`, received)).toBe(false);
    expect(received.headers['content-type']).toBe('application/json');
    expect(received.headers['foresight-delivery-id']).toBe(delivery.id);
    const [body] = hooks.bodies();
    expect(body).toEqual({
      id: expect.stringMatching(/^evt_[a-z0-9]{16}$/),
      type: 'model.retrained',
      createdAt: expect.stringMatching(/Z$/),
      data: expect.objectContaining({ modelId: model.body.id, model: 'checkout_hooks', version: 1, promoted: true }),
    });
    expect(delivery).toMatchObject({ eventId: body.id, eventType: 'model.retrained', attempts: 1, lastResponseCode: 200, lastError: null });
    expect(delivery.deliveredAt).toEqual(expect.stringMatching(/Z$/));
  });

  it('retries a receiver that fails its first three attempts until the event arrives', async () => {
    const org = await suite.createOrganization('Flaky');
    const flaky = await receiver((n) => (n <= 3 ? 503 : 200));
    const webhook = await subscribe(org, { url: flaky.url, events: ['model.failed'] });
    await failingRetrain(org, 'flaky_target');

    const delivery = await eventually('the fourth attempt to succeed', async () => {
      const [latest] = await deliveries(org, webhook.body.id);
      return latest?.status === 'succeeded' ? latest : undefined;
    });
    expect(delivery).toMatchObject({ eventType: 'model.failed', attempts: 4, lastResponseCode: 200, lastError: null });
    expect(flaky.requests).toHaveLength(4);
    // Every attempt is the same event under the same delivery id, freshly signed.
    expect(new Set(flaky.bodies().map((b) => b.id))).toEqual(new Set([delivery.eventId]));
    expect(new Set(flaky.requests.map((r) => r.headers['foresight-delivery-id']))).toEqual(new Set([delivery.id]));
    for (const attempt of flaky.requests) expect(verifySignature(webhook.body.secret, attempt)).toBe(true);
    // Failed attempts are logged, without the URL's query string.
    expect(worker.output()).toContain('webhook delivery attempt failed');
    expect(worker.output()).not.toContain('receiver-secret');
  });

  it('keeps delivering to a healthy receiver while another one hangs', async () => {
    const org = await suite.createOrganization('Isolation');
    const hanging = await receiver(() => 'hang');
    const healthy = await receiver(() => 200);
    const stuck = await subscribe(org, { url: hanging.url, events: ['model.failed'] });
    await subscribe(org, { url: healthy.url, events: ['model.failed'] });
    const events = 6;
    for (let i = 0; i < events; i++) await failingRetrain(org, `isolated_${i}`);

    await eventually(`${events} events at the healthy receiver`, () => (new Set(healthy.bodies().map((b) => b.id)).size === events ? true : undefined));
    const pending = await deliveries(org, stuck.body.id);
    expect(pending).toHaveLength(events);
    expect(pending.every((d) => d.status === 'pending' && d.deliveredAt === null)).toBe(true);
    // The per-endpoint cap: the hanging endpoint never held more than 4 attempts, whatever was queued for it.
    expect(hanging.requests.length).toBeGreaterThan(0);
    expect(hanging.maxOpen).toBeLessThanOrEqual(4);
  });

  it('disables an endpoint that keeps failing past WEBHOOK_DISABLE_AFTER and stops delivering to it', async () => {
    const org = await suite.createOrganization('Disabled');
    const down = await receiver(() => 500);
    const webhook = await subscribe(org, { url: down.url, events: ['model.failed', 'prediction.updated'] });
    // Ingestion re-scores the organization's users after new events only while an enabled webhook wants prediction.updated.
    const followed = () => redis.sismember(`${suite.env.REDIS_PREFIX}user-activity:wanted`, org.organization.id);
    expect(await followed()).toBe(1);
    // Arranged: failing for six days already (the default limit is five).
    await suite.sql(`UPDATE webhooks SET failing_since = now() - interval '6 days' WHERE id = $1`, [webhook.body.id]);
    await failingRetrain(org, 'long_down');

    const abandoned = await eventually('the delivery to be abandoned', async () => {
      const [latest] = await deliveries(org, webhook.body.id);
      return latest?.status === 'abandoned' ? latest : undefined;
    });
    expect(abandoned).toMatchObject({ attempts: 1, lastResponseCode: 500 });
    const [state] = (await request<Array<{ enabled: boolean; disabledReason: string | null }>>(`${api.baseUrl}/v1/webhooks`, as(org))).body;
    expect(state).toMatchObject({ enabled: false, disabledReason: expect.stringContaining('WEBHOOK_DISABLE_AFTER') });
    expect(await followed()).toBe(0);
    const retry = await request(`${api.baseUrl}/v1/webhooks/${webhook.body.id}/deliveries/${abandoned.id}/retry`, { ...as(org), method: 'POST' });
    expect(retry).toMatchObject({ status: 400, body: { error: 'invalid_request' } });

    // A disabled webhook gets no new deliveries.
    await failingRetrain(org, 'long_down_again');
    await eventually('the second model to fail', async () => {
      const models = (await request<Array<{ status: string }>>(`${api.baseUrl}/v1/models`, as(org))).body;
      return models.every((m) => m.status === 'failed') ? true : undefined;
    });
    await workDone(org, webhook.body.id);
    expect(await deliveries(org, webhook.body.id)).toHaveLength(1);
    expect(down.requests).toHaveLength(1);
  });

  it('refuses bad targets and event types with the field named', async () => {
    const org = await suite.createOrganization('Validation');
    const cases: Array<[unknown, string]> = [
      [{ url: 'ftp://example.com/hook', events: ['model.failed'] }, 'url'],
      [{ url: 'http://169.254.169.254/latest/meta-data', events: ['model.failed'] }, 'url'],
      [{ url: 'http://[fe80::1]/hook', events: ['model.failed'] }, 'url'],
      [{ url: 'http://10.1.2.3/hook', events: ['model.failed'] }, 'url'], // private, not in WEBHOOK_ALLOWED_NETWORKS
      [{ url: 'https://user:pass@example.com/hook', events: ['model.failed'] }, 'url'],
      [{ url: 'https://example.com/hook', events: ['model.deleted'] }, 'events.0'],
      [{ url: 'https://example.com/hook', events: [] }, 'events'],
    ];
    for (const [body, path] of cases) {
      const response = await request<{ error: string; details: Array<{ path: string }> }>(`${api.baseUrl}/v1/webhooks`, { ...as(org), method: 'POST', body });
      expect({ body, status: response.status, error: response.body.error, paths: response.body.details.map((d) => d.path) }).toEqual({
        body,
        status: 400,
        error: 'invalid_request',
        paths: [path],
      });
    }
    expect((await request<unknown[]>(`${api.baseUrl}/v1/webhooks`, as(org))).body).toEqual([]);
  });

  it('lists without secrets, keeps other organizations out, deletes, and requires the admin scope', async () => {
    const org = await suite.createOrganization('Crud');
    const created = await subscribe(org, { url: 'https://hooks.example.com/foresight?key=abc', events: ['model.retrained', 'drift.detected', 'model.retrained'] });
    expect(created.status).toBe(200);
    expect(created.body).toMatchObject({
      id: expect.stringMatching(/^whk_[a-z0-9]{16}$/),
      url: 'https://hooks.example.com/foresight?key=abc',
      events: ['model.retrained', 'drift.detected'],
      secret: expect.stringMatching(/^whsec_[0-9a-f]{64}$/),
    });
    const listed = await request<Array<Record<string, unknown>>>(`${api.baseUrl}/v1/webhooks`, as(org));
    expect(listed.body).toEqual([
      {
        id: created.body.id,
        url: created.body.url,
        events: ['model.retrained', 'drift.detected'],
        enabled: true,
        disabledReason: null,
        failingSince: null,
        createdAt: expect.stringMatching(/Z$/),
      },
    ]);
    expect(JSON.stringify(listed.body)).not.toContain(created.body.secret);
    const [stored] = await suite.sql<{ secret_encrypted: string }>('SELECT secret_encrypted FROM webhooks WHERE id = $1', [created.body.id]);
    expect(stored.secret_encrypted).toMatch(/^v2:[0-9a-f]{8}:/);
    expect(stored.secret_encrypted).not.toContain(created.body.secret.slice(6));

    const other = await suite.createOrganization('Crud other');
    expect((await request<unknown[]>(`${api.baseUrl}/v1/webhooks`, as(other))).body).toEqual([]);
    for (const [method, path] of [
      ['GET', `/v1/webhooks/${created.body.id}/deliveries`],
      ['DELETE', `/v1/webhooks/${created.body.id}`],
      ['POST', `/v1/webhooks/${created.body.id}/deliveries/dlv_aaaaaaaaaaaaaaaa/retry`],
    ]) {
      expect(await request(`${api.baseUrl}${path}`, { ...as(other), method })).toMatchObject({ status: 404, body: { error: 'not_found' } });
    }
    const readOnly = await request<{ token: string }>(`${api.baseUrl}/v1/tokens`, { ...as(org), method: 'POST', body: { environment: 'prod', scopes: ['read'] } });
    expect((await request(`${api.baseUrl}/v1/webhooks`, { token: readOnly.body.token })).status).toBe(403);

    const deleted = await request(`${api.baseUrl}/v1/webhooks/${created.body.id}`, { ...as(org), method: 'DELETE' });
    expect(deleted).toMatchObject({ status: 200, body: { id: created.body.id } });
    expect((await request<unknown[]>(`${api.baseUrl}/v1/webhooks`, as(org))).body).toEqual([]);
    expect((await request(`${api.baseUrl}/v1/webhooks/${created.body.id}`, { ...as(org), method: 'DELETE' })).status).toBe(404);
  });

  it('retries a failed delivery on request, once', async () => {
    const org = await suite.createOrganization('Manual');
    let up = false;
    const flaky = await receiver(() => (up ? 200 : 500));
    const webhook = await subscribe(org, { url: flaky.url, events: ['model.failed'] });
    await failingRetrain(org, 'manual_retry');
    const failed = await eventually('the delivery to fail after every scheduled attempt', async () => {
      const [latest] = await deliveries(org, webhook.body.id);
      return latest?.status === 'failed' ? latest : undefined;
    });
    expect(failed).toMatchObject({ attempts: 4, lastResponseCode: 500 });
    const [webhookState] = (await request<Array<{ failingSince: string | null; enabled: boolean }>>(`${api.baseUrl}/v1/webhooks`, as(org))).body;
    expect(webhookState).toMatchObject({ enabled: true, failingSince: expect.stringMatching(/Z$/) });

    up = true;
    const retry = (deliveryId: string) =>
      request<Delivery & { error?: string }>(`${api.baseUrl}/v1/webhooks/${webhook.body.id}/deliveries/${deliveryId}/retry`, { ...as(org), method: 'POST' });
    const retried = await retry(failed.id);
    expect(retried).toMatchObject({ status: 200, body: { id: failed.id, status: 'pending' } });
    const succeeded = await eventually('the manual retry to succeed', async () => {
      const [latest] = await deliveries(org, webhook.body.id);
      return latest?.status === 'succeeded' ? latest : undefined;
    });
    expect(succeeded).toMatchObject({ attempts: 5, lastResponseCode: 200 });
    expect(flaky.requests).toHaveLength(5);
    expect((await request<Array<{ failingSince: string | null }>>(`${api.baseUrl}/v1/webhooks`, as(org))).body[0].failingSince).toBeNull();
    expect(await retry(failed.id)).toMatchObject({ status: 400, body: { error: 'invalid_request' } });
    expect((await retry('dlv_unknown')).status).toBe(404);
  });

  it('sends a delivery again, under the same ids, when its worker is killed before recording the answer (at least once)', async () => {
    const org = await suite.createOrganization('Killed');
    // The first request is held open until the worker sending it is dead: its answer is never recorded.
    const hooks = await receiver((n) => (n === 1 ? 'hang' : 200));
    const webhook = await subscribe(org, { url: hooks.url, events: ['model.failed'] });
    await failingRetrain(org, 'killed_sender');
    await eventually('the first attempt at the receiver', () => (hooks.requests.length === 1 ? true : undefined));
    await worker.kill();
    const [pending] = await deliveries(org, webhook.body.id);
    expect(pending).toMatchObject({ status: 'pending', attempts: 0 });

    worker = await startWorker(env);
    // The new worker takes the job over once the dead one's lock has expired (BullMQ's stalled check).
    const delivered = await eventually('the delivery sent again and recorded', async () => {
      const [latest] = await deliveries(org, webhook.body.id);
      return latest?.status === 'succeeded' ? latest : undefined;
    }, 180_000);
    expect(delivered).toMatchObject({ id: pending.id, attempts: 1, lastResponseCode: 200 });
    expect(hooks.requests).toHaveLength(2);
    expect(new Set(hooks.requests.map((r) => r.headers['foresight-delivery-id']))).toEqual(new Set([pending.id]));
    expect(new Set(hooks.bodies().map((b) => b.id))).toEqual(new Set([pending.eventId]));
    for (const attempt of hooks.requests) expect(verifySignature(webhook.body.secret, attempt)).toBe(true);
  }, 240_000);
});
