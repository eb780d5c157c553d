import { randomUUID } from 'node:crypto';
import { eventually } from '../support/eventually';
import { request } from '../support/http';
import { type RunningProcess, startApi } from '../support/processes';
import { type OrganizationWithToken, TestSuite } from '../support/suite';
import { Receiver, verifySignature, type WebhookBody } from '../support/webhook-receiver';

interface LiveEvent {
  messageId: string;
  event: string;
  userId: string | null;
  library: string | null;
  properties?: Record<string, unknown> | null;
}

interface LivePage {
  events: LiveEvent[];
  cursor: string | null;
}

interface Delivery {
  id: string;
  eventType: string;
  status: string;
  attempts: number;
  lastResponseCode: number | null;
}

interface Erasure {
  id: string;
  userHash: string;
  status: 'pending' | 'confirmed';
  erased: Record<string, number>;
}

/** The API issue 21 adds for the dashboard's administration pages: every route scoped, scope-checked and BOLA-tested. */
describe('dashboard administration API', () => {
  let suite: TestSuite;
  let org: OrganizationWithToken;
  let other: OrganizationWithToken;
  let api: RunningProcess;
  let read: { id: string; token: string };
  let ingest: { id: string; token: string };
  let receiver: Receiver;
  const url = (path: string) => `${api.baseUrl}/v1${path}`;
  const as = (token: string, method = 'GET', body?: unknown) => ({ token, method, body });
  const admin = (method = 'GET', body?: unknown) => as(org.token.secret, method, body);
  const issue = async (scopes: string[], owner = org) =>
    (await request<{ id: string; token: string }>(url('/tokens'), as(owner.token.secret, 'POST', { environment: 'dev', scopes }))).body;
  const live = async (token: string, after?: string) =>
    (await request<LivePage>(url(`/events/live${after ? `?after=${encodeURIComponent(after)}` : ''}`), as(token))).body;

  beforeAll(async () => {
    suite = await TestSuite.create('dashboard_admin_api');
    org = await suite.createOrganization('admin_api', ['--rate-limit', '100000', '--burst', '200000']);
    other = await suite.createOrganization('other');
    api = await startApi({ ...suite.env, WORKER_MODE: 'inline', WEBHOOK_ALLOWED_NETWORKS: '127.0.0.0/8', WEBHOOK_RETRY_SCHEDULE: '1s' });
    [read, ingest] = await Promise.all([issue(['read']), issue(['ingest'])]);
    receiver = await Receiver.start((n) => (n === 1 ? 503 : 200));
  }, 120_000);

  afterAll(async () => {
    await receiver?.close();
    await api?.stop();
    await suite?.destroy();
  });

  it("lists each token's last use, to the minute, and null for a token never used", async () => {
    const unused = await issue(['read']);
    expect((await request(url('/models'), as(read.token))).status).toBe(200);
    const tokens = (await request<Array<{ id: string; lastUsedAt: string | null }>>(url('/tokens'), admin())).body;
    const lastUse = (id: string) => tokens.find((t) => t.id === id)?.lastUsedAt;
    expect(Date.now() - Date.parse(lastUse(read.id) ?? '')).toBeLessThan(120_000);
    expect(lastUse(unused.id)).toBeNull();
    expect(JSON.stringify(tokens)).not.toContain(read.token);
  });

  it('reads and changes the organization settings (admin only); a new rate limit applies at once', async () => {
    const settings = await request<{ id: string; rateLimitPerMinute: number; burstPerMinute: number; retentionDays: number; hashUserIds: boolean }>(url('/organization'), admin());
    expect(settings.body).toMatchObject({ id: org.organization.id, rateLimitPerMinute: 100000, burstPerMinute: 200000, hashUserIds: false, retentionDays: 395 });
    expect(await request(url('/organization'), as(read.token))).toMatchObject({ status: 403, body: { error: 'insufficient_scope' } });
    expect(await request(url('/organization'), admin('PATCH', { rateLimitPerMinute: 10, burstPerMinute: 10 }))).toMatchObject({
      status: 400,
      body: { error: 'invalid_request', message: expect.stringContaining('burstPerMinute') },
    });
    expect(await request(url('/organization'), admin('PATCH', {}))).toMatchObject({ status: 400, body: { error: 'invalid_request' } });
    expect(await request(url('/organization'), admin('PATCH', { id: other.organization.id, retentionDays: 30 }))).toMatchObject({ status: 400 });
    expect((await request<{ retentionDays: number }>(url('/organization'), admin())).body.retentionDays).toBe(395);

    // A third organization's own admin changes its limit: this organization's stays as it was.
    const third = await suite.createOrganization('limited');
    const limited = await issue(['read'], third);
    const changed = await request(url('/organization'), as(third.token.secret, 'PATCH', { rateLimitPerMinute: 3, burstPerMinute: 5, retentionDays: 90 }));
    expect(changed).toMatchObject({ status: 200, body: { id: third.organization.id, rateLimitPerMinute: 3, burstPerMinute: 5, retentionDays: 90 } });
    expect((await request<{ rateLimitPerMinute: number }>(url('/organization'), admin())).body.rateLimitPerMinute).toBe(100000);
    const answers = await eventually('the new limit applied', async () => {
      const statuses: number[] = [];
      let limit: string | null = null;
      for (let i = 0; i < 4; i++) {
        const response = await request(url('/models'), as(limited.token));
        statuses.push(response.status);
        limit = response.headers.get('ratelimit-limit');
      }
      return statuses.includes(429) && limit === '3' ? statuses : undefined;
    });
    expect(answers.filter((s) => s === 200).length).toBeLessThanOrEqual(2);
  });

  it('shows the latest events as they arrive, with their library, property values for admin tokens only', async () => {
    const first = await live(read.token);
    expect(first.events).toEqual([]);
    const markup = '<img src=x onerror="alert(1)">';
    const sent = [
      { event: `signup ${markup}`, userId: `user-${markup}`, messageId: randomUUID(), context: { library: { name: 'analytics-kotlin', version: '1.0' } }, properties: { plan: markup } },
      { event: 'app_open', userId: 'live-user-2', messageId: randomUUID() },
    ];
    expect(await request(url('/events'), as(ingest.token, 'POST', sent))).toMatchObject({ status: 200, body: { accepted: 2 } });
    const page = await eventually('the events in the live feed', async () => {
      const next = await live(read.token, first.cursor ?? undefined);
      return next.events.length === 2 ? next : undefined;
    });
    expect(page.events.map((e) => e.event).sort()).toEqual(['app_open', `signup ${markup}`]);
    const signup = page.events.find((e) => e.event.startsWith('signup'));
    expect(signup).toMatchObject({ userId: `user-${markup}`, library: 'analytics-kotlin' });
    expect(signup).not.toHaveProperty('properties');
    expect(page.events.find((e) => e.event === 'app_open')?.library).toBeNull();
    const asAdmin = await live(org.token.secret);
    expect(asAdmin.events.find((e) => e.event.startsWith('signup'))?.properties).toEqual({ plan: markup });
    // Nothing new since the cursor: an empty page that keeps the cursor.
    expect(await live(read.token, page.cursor ?? undefined)).toEqual({ events: [], cursor: page.cursor });

    expect((await live(other.token.secret)).events).toEqual([]);
    expect(await request(url('/events/live'), as(ingest.token))).toMatchObject({ status: 403, body: { error: 'insufficient_scope' } });
    expect(await request(url('/events/live?after=bm90LWEtY3Vyc29y'), as(read.token))).toMatchObject({ status: 400, body: { error: 'invalid_request', message: expect.stringContaining('after') } });
    expect(await request(url('/events/live?limit=0'), as(read.token))).toMatchObject({ status: 400, body: { error: 'invalid_request' } });
  });

  it('sends a signed test event to one webhook, logs the delivery and retries it; other organizations get 404', async () => {
    const created = await request<{ id: string; secret: string }>(url('/webhooks'), admin('POST', { url: receiver.url, events: ['model.failed'] }));
    const webhookId = created.body.id;
    const test = await request<Delivery>(url(`/webhooks/${webhookId}/test`), admin('POST'));
    expect(test).toMatchObject({ status: 200, body: { eventType: 'webhook.test', status: 'pending', attempts: 0 } });
    const deliveries = () => request<Delivery[]>(url(`/webhooks/${webhookId}/deliveries`), admin());
    const failed = await eventually('the test event answered 503', async () => {
      const [delivery] = (await deliveries()).body;
      return delivery.status === 'failed' ? delivery : undefined;
    });
    expect(failed).toMatchObject({ id: test.body.id, attempts: 1, lastResponseCode: 503 });
    const [received] = receiver.requests;
    expect(verifySignature(created.body.secret, received)).toBe(true);
    expect(JSON.parse(received.body) as WebhookBody).toMatchObject({ type: 'webhook.test', data: { webhookId } });

    expect((await request(url(`/webhooks/${webhookId}/deliveries/${failed.id}/retry`), admin('POST'))).status).toBe(200);
    const retried = await eventually('the retried test event delivered', async () => {
      const [delivery] = (await deliveries()).body;
      return delivery.status === 'succeeded' ? delivery : undefined;
    });
    expect(retried).toMatchObject({ attempts: 2, lastResponseCode: 200 });

    expect(await request(url(`/webhooks/${webhookId}/test`), as(other.token.secret, 'POST'))).toMatchObject({ status: 404, body: { error: 'not_found' } });
    expect(await request(url(`/webhooks/${webhookId}/test`), as(read.token, 'POST'))).toMatchObject({ status: 403, body: { error: 'insufficient_scope' } });
    expect(await request(url('/webhooks/whk_doesnotexist0000/test'), admin('POST'))).toMatchObject({ status: 404 });
    expect((await deliveries()).body).toHaveLength(1);
  });

  it('lists erasure records until the sweep confirms them, and unsuppresses an erased user', async () => {
    const user = 'erase-me-7f2';
    await request(url('/events'), as(ingest.token, 'POST', [{ event: 'click', userId: user }, { event: 'click', userId: 'bystander-1' }]));
    expect((await request(url(`/users?userId=${user}&suppress=true`), admin('DELETE'))).status).toBe(200);
    const [record] = await eventually('the erasure confirmed', async () => {
      const { erasures } = (await request<{ erasures: Erasure[] }>(url('/users/erasures'), admin())).body;
      return erasures[0]?.status === 'confirmed' ? erasures : undefined;
    });
    expect(record.erased.events).toBeGreaterThan(0);
    expect(JSON.stringify(record)).not.toContain(user);
    const byUser = (await request<{ erasures: Erasure[] }>(url(`/users/erasures?userId=${user}`), admin())).body.erasures;
    expect(byUser.map((e) => e.id)).toEqual([record.id]);
    expect((await request<{ erasures: Erasure[] }>(url('/users/erasures?userId=bystander-1'), admin())).body.erasures).toEqual([]);
    expect((await request<{ erasures: Erasure[] }>(url('/users/erasures'), as(other.token.secret))).body.erasures).toEqual([]);
    expect(await request(url('/users/erasures'), as(read.token))).toMatchObject({ status: 403 });

    const suppressed = await request<{ suppressed?: number }>(url('/events'), as(ingest.token, 'POST', { event: 'click', userId: user }));
    expect(suppressed.body.suppressed).toBe(1);
    expect(await request(url(`/users/suppression?userId=${user}`), as(other.token.secret, 'DELETE'))).toMatchObject({ status: 200, body: { unsuppressed: false } });
    expect(await request(url(`/users/suppression?userId=${user}`), as(read.token, 'DELETE'))).toMatchObject({ status: 403 });
    expect(await request(url(`/users/suppression?userId=${user}`), admin('DELETE'))).toMatchObject({ status: 200, body: { userId: user, unsuppressed: true } });
    expect(await request(url(`/users/suppression?userId=${user}`), admin('DELETE'))).toMatchObject({ status: 200, body: { unsuppressed: false } });
    expect(await request(url('/users/suppression'), admin('DELETE'))).toMatchObject({ status: 400, body: { error: 'invalid_request' } });
  });

  it('filters the audit log by action and time, for admin tokens of the organization only', async () => {
    const before = new Date(Date.now() - 1000).toISOString();
    await request(url(`/tokens/${read.id}`), admin('DELETE'));
    const all = (await request<{ entries: Array<{ action: string; target: string | null; actorTokenId: string | null }> }>(url('/audit'), admin())).body.entries;
    expect(all.map((e) => e.action)).toEqual(expect.arrayContaining(['token.create', 'token.revoke', 'webhook.create', 'user.delete', 'user.unsuppress']));
    expect(JSON.stringify(all)).not.toContain('erase-me-7f2');
    const revokes = (await request<{ entries: Array<{ action: string; target: string }> }>(url(`/audit?action=token.revoke&since=${encodeURIComponent(before)}`), admin())).body.entries;
    expect(revokes).toEqual([expect.objectContaining({ action: 'token.revoke', target: read.id, actorTokenId: org.token.id })]);
    const untilBefore = (await request<{ entries: unknown[] }>(url(`/audit?action=token.revoke&until=${encodeURIComponent(before)}`), admin())).body.entries;
    expect(untilBefore).toEqual([]);
    // The other organization sees only its own (refused-as-nothing-to-do) unsuppress call.
    const otherAudit = (await request<{ entries: Array<{ action: string; actor: string; actorTokenId: string | null }> }>(url('/audit'), as(other.token.secret))).body.entries;
    expect(otherAudit.map((e) => [e.action, e.actor, e.actorTokenId])).toEqual([
      ['user.unsuppress', 'token', other.token.id],
      ['token.create', 'cli', null],
      ['organization.create', 'cli', null],
    ]);
    expect(await request(url('/audit?action=token.steal'), admin())).toMatchObject({ status: 400, body: { error: 'invalid_request' } });
    expect(await request(url(`/audit?since=${encodeURIComponent(new Date().toISOString())}&until=${encodeURIComponent(before)}`), admin())).toMatchObject({ status: 400 });
    expect(await request(url('/audit'), as(ingest.token))).toMatchObject({ status: 403 });
  });
});
