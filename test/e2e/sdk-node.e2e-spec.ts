import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  AuthenticationError,
  createApiClient,
  Foresight,
  InvalidRequestError,
  NotFoundError,
  PermissionError,
  RateLimitedError,
  verifyWebhook,
  WebhookVerificationError,
} from '@foresight/node';
import { eventually } from '../support/eventually';
import { FaultProxy } from '../support/fault-proxy';
import { seededSince, seedPredictionLog } from '../support/prediction-log';
import { cliJson, type RunningProcess, startApi, startWorker } from '../support/processes';
import { type OrganizationWithToken, TestSuite } from '../support/suite';
import { TcpProxy } from '../support/tcp-proxy';
import { Receiver } from '../support/webhook-receiver';

/** The Node SDK (@foresight/node) against the real API process, Postgres and Redis. */
describe('@foresight/node', () => {
  let suite: TestSuite;
  let api: RunningProcess;
  let worker: RunningProcess;
  let org: OrganizationWithToken;
  const warnings: string[] = [];
  const logger = { warn: (message: string) => void warnings.push(message) };

  beforeAll(async () => {
    suite = await TestSuite.create('sdknode');
    const env = { ...suite.env, WEBHOOK_ALLOWED_NETWORKS: '127.0.0.0/8' };
    api = await startApi(env);
    worker = await startWorker(env);
    org = await suite.createOrganization('NodeSdk');
  });

  afterAll(async () => {
    await worker?.stop();
    await api?.stop();
    await suite?.destroy();
  });

  /**
   * How many events named `event` the organization has stored, and under how many messageIds. The SDK
   * generates each event's messageId once: an event resent under a new one would be stored twice.
   */
  const stored = async (organizationId: string, event: string) => {
    const [row] = await suite.sql<{ total: string; distinct_ids: string }>(
      `SELECT count(*) AS total, count(DISTINCT message_id) AS distinct_ids FROM events WHERE organization_id = $1 AND event = $2`,
      [organizationId, event],
    );
    return { total: Number(row.total), distinct: Number(row.distinct_ids) };
  };
  const client = (host: string, options: Partial<ConstructorParameters<typeof Foresight>[1]> = {}) =>
    new Foresight(org.token.secret, { host, flushIntervalMs: 3_600_000, handleSignals: false, logger, ...options });

  describe('event delivery', () => {
    it('stores every event exactly once through 429s, 500s and connections cut before and after the API answered', async () => {
      const proxy = await FaultProxy.start(api.baseUrl, '/v1/events');
      try {
        // At most two failures in a row, so that backoff stays around a second.
        proxy.inject('rate-limited', 'drop-after', 'pass', 'server-error', 'drop-before', 'pass', 'drop-after', 'rate-limited', 'pass', 'drop-after');
        const foresight = client(proxy.url, { flushAt: 100 });
        for (let n = 0; n < 1_000; n++) foresight.track({ event: 'faulty_network', userId: `user-${n % 37}`, properties: { n } });
        await foresight.flush();
        expect(foresight.pending).toBe(0);
        expect(proxy.pendingFaults).toBe(0);
        // Ten batches of 100, seven of the attempts faulted: the three dropped after the API answered were stored then.
        expect(proxy.requests).toBe(10 + 7);
        expect(await stored(org.organization.id, 'faulty_network')).toEqual({ total: 1_000, distinct: 1_000 });
      } finally {
        await proxy.close();
      }
    });

    it('keeps events while the API is unreachable and delivers them once it is back', async () => {
      const proxy = await TcpProxy.start({ host: '127.0.0.1', port: Number(new URL(api.baseUrl).port) });
      try {
        proxy.cut();
        const foresight = client(`http://127.0.0.1:${proxy.port}`, { flushAt: 1_000 });
        for (let n = 0; n < 300; n++) foresight.track({ event: 'api_outage', anonymousId: `device-${n % 5}`, properties: { n } });
        const delivered = foresight.flush();
        await eventually('the client to try again after a refused connection', () => (proxy.refused >= 2 ? true : undefined));
        expect(foresight.pending).toBe(300);
        proxy.restore();
        await delivered;
        expect(foresight.pending).toBe(0);
        expect(await stored(org.organization.id, 'api_outage')).toEqual({ total: 300, distinct: 300 });
      } finally {
        await proxy.close();
      }
    });

    it('loses nothing on shutdown(), even with sends in flight, and refuses events afterwards', async () => {
      const foresight = client(api.baseUrl, { flushAt: 100 });
      for (let n = 0; n < 2_550; n++) foresight.track({ event: 'before_shutdown', userId: `user-${n % 11}`, properties: { n } });
      await foresight.shutdown();
      expect(await stored(org.organization.id, 'before_shutdown')).toEqual({ total: 2_550, distinct: 2_550 });
      expect(() => foresight.track({ event: 'after_shutdown', userId: 'user-1' })).toThrow(/shut down/);
    });

    it('flushes on SIGTERM in a process that never calls shutdown(), then ends as SIGTERM would (the published build)', async () => {
      const script = `
        const { Foresight } = require(${JSON.stringify(join(__dirname, '..', '..', 'dist', 'packages', 'node', 'index.cjs'))});
        const foresight = Foresight.init(process.env.FORESIGHT_TOKEN, { host: process.env.FORESIGHT_HOST, flushIntervalMs: 3600000, flushAt: 1000 });
        for (let n = 0; n < 400; n++) foresight.track({ event: 'on_sigterm', userId: 'user-' + (n % 7), properties: { n } });
        setInterval(() => undefined, 1000); // a server: it would run forever
        process.stdout.write('ready\\n');
      `;
      const child = spawn(process.execPath, ['-e', script], {
        env: { PATH: process.env.PATH ?? '', FORESIGHT_TOKEN: org.token.secret, FORESIGHT_HOST: api.baseUrl },
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      await new Promise<void>((resolve) => child.stdout.on('data', (chunk: Buffer) => chunk.toString().includes('ready') && resolve()));
      const exited = new Promise<NodeJS.Signals | null>((resolve) => child.on('exit', (_code, signal) => resolve(signal)));
      child.kill('SIGTERM');
      expect(await exited).toBe('SIGTERM');
      expect(await stored(org.organization.id, 'on_sigterm')).toEqual({ total: 400, distinct: 400 });
    });

    it('refuses what the API would refuse before queueing it', () => {
      const foresight = client(api.baseUrl);
      expect(() => foresight.track({ event: '', userId: 'u' })).toThrow(/event name/);
      expect(() => foresight.track({ event: 'no_one' })).toThrow(/userId or anonymousId/);
      expect(() => foresight.track({ event: 'huge', userId: 'u', properties: { text: 'x'.repeat(40_000) } })).toThrow(RangeError);
      expect(foresight.pending).toBe(0);
    });
  });

  describe('typed API client', () => {
    const admin = () => createApiClient({ token: org.token.secret, host: api.baseUrl });

    it('is typed from the very document the running API serves', async () => {
      const served: unknown = await (await fetch(`${api.baseUrl}/v1/openapi.json`)).json();
      expect(served).toEqual(JSON.parse(readFileSync(join(__dirname, '..', '..', 'dist', 'openapi.json'), 'utf8')));
    });

    it('creates, lists and reads models, and throws NotFoundError for an unknown one', async () => {
      const created = await admin().models.create({ body: { name: 'sdk_checkout', targetEvent: 'checkout' } });
      expect(created.id).toMatch(/^mdl_/);
      expect((await admin().models.list()).map((model) => model.id)).toContain(created.id);
      expect((await admin().models.get({ path: { modelId: created.id } })).targetEvent).toBe('checkout');
      const missing = await admin().models.get({ path: { modelId: 'mdl_0000000000000000' } }).catch((error: unknown) => error);
      expect(missing).toBeInstanceOf(NotFoundError);
      expect(missing).toMatchObject({ status: 404, code: 'not_found' });
    });

    it('throws typed errors: invalid request with details, bad token, missing scope, unknown user', async () => {
      const invalid = await admin().models.create({ body: { name: 'Bad Name', targetEvent: 'checkout' } }).catch((error: unknown) => error);
      expect(invalid).toBeInstanceOf(InvalidRequestError);
      expect((invalid as InvalidRequestError).details?.map((detail) => detail.path)).toContain('name');
      const stranger = createApiClient({ token: 'pat_dev_notarealtokenatallnotarealtoken', host: api.baseUrl });
      await expect(stranger.health()).rejects.toBeInstanceOf(AuthenticationError);
      const ingest = await cliJson<{ token: { secret: string } }>(suite.env, ['token', 'create', '--org', org.organization.id, '--env', 'dev', '--scopes', 'ingest']);
      await expect(createApiClient({ token: ingest.token.secret, host: api.baseUrl }).models.list()).rejects.toBeInstanceOf(PermissionError);
      await expect(admin().predictions.get({ query: { userId: 'never-seen' } })).rejects.toBeInstanceOf(NotFoundError);
      await expect(admin().users.delete({ query: { userId: 'never-seen' } })).rejects.toBeInstanceOf(NotFoundError);
    });

    it('throws RateLimitedError with retryAfter once the token is over its limit', async () => {
      const limited = await suite.createOrganization('Limited', ['--rate-limit', '1', '--burst', '2']);
      const client = createApiClient({ token: limited.token.secret, host: api.baseUrl, maxRetries: 0 });
      const outcomes = await Promise.all(Array.from({ length: 4 }, () => client.health().catch((error: unknown) => error)));
      const rateLimited = outcomes.filter((outcome): outcome is RateLimitedError => outcome instanceof RateLimitedError);
      expect(rateLimited.length).toBeGreaterThan(0);
      expect(rateLimited[0]).toMatchObject({ status: 429, code: 'rate_limited' });
      expect(rateLimited[0].retryAfter).toBeGreaterThanOrEqual(1);
    });

    it("exports a user's events and erases them", async () => {
      const foresight = client(api.baseUrl);
      foresight.identify({ userId: 'erasable-user', traits: { plan: 'pro' } });
      foresight.screen({ userId: 'erasable-user', name: 'Pricing' });
      await foresight.shutdown();
      const exported = await admin().users.export({ query: { userId: 'erasable-user' } });
      expect(exported.events.map((event) => (event as { event: string }).event).sort()).toEqual(['identify', 'screen_view']);
      expect(await admin().users.delete({ query: { userId: 'erasable-user' } })).toEqual({ status: 'deleted', userId: 'erasable-user' });
      await expect(admin().users.export({ query: { userId: 'erasable-user' } })).rejects.toBeInstanceOf(NotFoundError);
    });

    it('iterates the NDJSON export row by row, in order, and stops the download when the loop stops', async () => {
      const exporter = await suite.createOrganization('Exporter');
      await seedPredictionLog(suite, exporter.organization.id, 2_500);
      const client = createApiClient({ token: exporter.token.secret, host: api.baseUrl });
      let rows = 0;
      let previous = '';
      for await (const row of client.predictions.export({ query: { since: seededSince() } })) {
        expect(row.timestamp >= previous).toBe(true);
        expect(row).toMatchObject({ userId: expect.any(String), model: expect.stringMatching(/^model_/), confidence: expect.any(Number) });
        previous = row.timestamp;
        rows++;
      }
      expect(rows).toBe(2_500);
      const firstTen = [];
      for await (const row of client.predictions.export({ query: { since: seededSince() } })) {
        firstTen.push(row);
        if (firstTen.length === 10) break;
      }
      expect(firstTen).toHaveLength(10);
    });

    it('manages webhooks, and verifyWebhook accepts a real delivery and refuses a tampered or stale one', async () => {
      const receiver = await Receiver.start(() => 200);
      try {
        const webhook = await admin().webhooks.create({ body: { url: receiver.url, events: ['model.failed'] } });
        expect((await admin().webhooks.list()).map((listed) => listed.id)).toContain(webhook.id);
        const model = await admin().models.create({ body: { name: 'never_converges', targetEvent: 'never_happens' } });
        await admin().models.retrain({ body: { modelId: model.id } });
        const delivery = await eventually('a model.failed delivery', () => receiver.requests[0]);

        const event = verifyWebhook(delivery.body, String(delivery.headers.signature), webhook.secret);
        expect(event).toMatchObject({ type: 'model.failed', id: expect.any(String) });
        expect(() => verifyWebhook(delivery.body.replace('model.failed', 'model.retrained'), String(delivery.headers.signature), webhook.secret)).toThrow(WebhookVerificationError);
        expect(() => verifyWebhook(delivery.body, String(delivery.headers.signature), `${webhook.secret}x`)).toThrow(WebhookVerificationError);
        const later = Math.floor(Date.now() / 1000) + 600;
        expect(() => verifyWebhook(delivery.body, String(delivery.headers.signature), webhook.secret, { now: later })).toThrow(/tolerance/);
        expect(verifyWebhook(delivery.body, String(delivery.headers.signature), webhook.secret, { now: later, toleranceSeconds: 3_600 }).id).toBe(event.id);

        await admin().webhooks.delete({ path: { webhookId: webhook.id } });
        expect((await admin().webhooks.list()).map((listed) => listed.id)).not.toContain(webhook.id);
      } finally {
        await receiver.close();
      }
    });
  });
});
