import { randomUUID } from 'node:crypto';
import { Analytics } from '@segment/analytics-node';
import { eventually } from '../support/eventually';
import { request } from '../support/http';
import { startApi } from '../support/processes';
import { withApiSuite } from '../support/suite';

const event = (i: number, extra: Record<string, unknown> = {}) => ({
  event: i % 3 === 0 ? 'scroll' : 'click',
  userId: `user-${i % 50}`,
  messageId: `msg-${i}-${randomUUID()}`,
  timestamp: new Date(Date.now() - i * 1000).toISOString(),
  properties: i % 3 === 0 ? { depth: 0.5, dwellMs: 1200 } : { button: 'buy' },
  ...extra,
});

describe('event ingestion', () => {
  const t = withApiSuite('events');

  const countEvents = async () => Number((await t.suite.sql<{ n: string }>('SELECT count(*) AS n FROM events'))[0].n);
  const post = (body: unknown, headers: Record<string, string> = {}, path = '/v1/events') =>
    request(`${t.api.baseUrl}${path}`, { token: t.org.token.secret, method: 'POST', body, headers });

  it('acknowledges a batch of 500, stores all of it, and stores a resend once', async () => {
    const batch = Array.from({ length: 500 }, (_, i) => event(i));
    const first = await post(batch);
    expect(first).toMatchObject({ status: 200, body: { status: 'accepted', accepted: 500, duplicates: 0 } });
    const ids = batch.map((e) => e.messageId);
    const stored = await t.suite.sql<{ n: string }>('SELECT count(*) AS n FROM events WHERE message_id = ANY($1)', [ids]);
    expect(Number(stored[0].n)).toBe(500);

    const again = await post(batch);
    expect(again.body).toEqual({ status: 'accepted', accepted: 0, duplicates: 500, suppressed: 0 });
    expect(Number((await t.suite.sql<{ n: string }>('SELECT count(*) AS n FROM events WHERE message_id = ANY($1)', [ids]))[0].n)).toBe(500);
  });

  it('stores concurrent batches that name the same users, anonymous ids and messageIds in opposite orders, and counts each once', async () => {
    // Concurrent requests are written by concurrent transactions; rows they share must not deadlock them.
    const shared = Array.from({ length: 300 }, (_, i) => ({
      event: 'click',
      messageId: `crossing-${i}`,
      userId: `crossing-user-${i % 30}`,
      anonymousId: `crossing-anon-${i % 45}`,
      timestamp: new Date(Date.now() - i * 1000).toISOString(),
    }));
    const responses = [];
    for (let round = 0; round < 5; round++) {
      const batch = shared.map((e) => ({ ...e, messageId: `${e.messageId}-${round}`, userId: `${e.userId}-${round % 2}` }));
      responses.push(...(await Promise.all([post(batch), post([...batch].reverse()), post(batch.slice(100)), post(batch.slice(0, 200).reverse())])));
    }
    expect(responses.map((r) => r.status)).toEqual(responses.map(() => 200));
    const accepted = responses.reduce((sum, r) => sum + (r.body as { accepted: number }).accepted, 0);
    expect(accepted).toBe(5 * shared.length);
    const [{ n }] = await t.suite.sql<{ n: string }>(`SELECT count(*) AS n FROM events WHERE message_id LIKE 'crossing-%'`);
    expect(Number(n)).toBe(5 * shared.length);
  });

  it('stores event names of any printable Unicode and reads a timestamp without a zone as UTC', async () => {
    const named = ['Add to cart!', 'Caméra ouverte', '購入完了', 'x'.repeat(255)].map((name, i) => ({
      event: name,
      userId: 'unicode-names',
      messageId: `unicode-${i}-${randomUUID()}`,
      timestamp: `2026-11-0${i + 1}T08:30:00`,
    }));
    expect((await post(named)).body).toMatchObject({ accepted: 4 });
    const rows = await t.suite.sql<{ event: string; occurred_at: Date }>(
      `SELECT event, occurred_at FROM events WHERE user_id = 'unicode-names' ORDER BY occurred_at`,
    );
    expect(rows.map((r) => r.event)).toEqual(named.map((e) => e.event));
    expect(rows.map((r) => r.occurred_at.toISOString())).toEqual(named.map((e) => `${e.timestamp}.000Z`));
    expect((await post({ event: 'bell\u0007', userId: 'unicode-names' })).status).toBe(400);
  });

  it('stores behavioral signals in typed columns and keeps receivedAt beside timestamp', async () => {
    const scroll = { event: 'scroll', userId: 'typed', messageId: randomUUID(), timestamp: '2026-11-20T10:00:00+02:00', properties: { depth: 0.8, hesitationMs: 350.4 } };
    const view = { event: 'screen_view', userId: 'typed', messageId: randomUUID(), properties: { screen: 'Cart', dwellMs: 5000, plan: 'pro' } };
    expect((await post([scroll, view])).body).toMatchObject({ accepted: 2 });
    const rows = await t.suite.sql<Record<string, unknown>>(
      `SELECT event, screen, scroll_depth, dwell_ms, hesitation_ms, occurred_at, received_at, properties FROM events WHERE user_id = 'typed' ORDER BY event`,
    );
    // Typed signals in clear for features; the free-form properties only as ciphertext (privacy e2e reads them back).
    expect(rows[0]).toMatchObject({ event: 'screen_view', screen: 'Cart', dwell_ms: 5000, properties: expect.stringMatching(/^v2:[0-9a-f]{8}:/) });
    expect(rows[1]).toMatchObject({ event: 'scroll', scroll_depth: 0.8, hesitation_ms: 350 });
    expect((rows[1].occurred_at as Date).toISOString()).toBe('2026-11-20T08:00:00.000Z');
    expect((rows[1].received_at as Date).getTime()).toBeGreaterThan(Date.now() - 60_000);
  });

  it('stores text exactly as sent, with the characters the bulk load escapes (backslash, tab, newline, carriage return)', async () => {
    const odd = { event: 'a\\N b\\\\c', userId: 'esc\\aped', sessionId: '\\t', messageId: `\\N-${randomUUID()}`, properties: { screen: 'tab\there\nnew\r\\.' } };
    expect((await post([odd])).body).toMatchObject({ accepted: 1, duplicates: 0 });
    const rows = await t.suite.sql<Record<string, unknown>>(`SELECT event, user_id, session_id, message_id, screen FROM events WHERE message_id = $1`, [odd.messageId]);
    expect(rows).toEqual([{ event: odd.event, user_id: odd.userId, session_id: odd.sessionId, message_id: odd.messageId, screen: odd.properties.screen }]);
  });

  it('counts a messageId repeated inside one request once', async () => {
    const one = event(1);
    expect((await post([one, one, { ...one }])).body).toEqual({ status: 'accepted', accepted: 1, duplicates: 2, suppressed: 0 });
  });

  describe('bad input stores nothing', () => {
    const big = 'x'.repeat(33 * 1024);
    const cases: Array<[string, () => Promise<{ status: number; body: unknown }>, number, string]> = [
      ['non-JSON body', () => post('{"event": "click", ', { 'content-type': 'application/json' }), 400, 'invalid_request'],
      ['wrong content type', () => post('event=click', { 'content-type': 'text/plain' }), 415, 'unsupported_media_type'],
      ['body over 1 MiB', () => post(Array.from({ length: 40 }, (_, i) => event(i, { properties: { pad: 'y'.repeat(30_000) } }))), 413, 'payload_too_large'],
      ['1,001 events', () => post(Array.from({ length: 1001 }, (_, i) => ({ event: 'click', userId: `u${i}` }))), 400, 'invalid_request'],
      ['an event over 32 KiB', () => post([event(1), event(2, { properties: { pad: big } })]), 400, 'invalid_request'],
      ['missing event', () => post({ userId: 'u1' }), 400, 'invalid_request'],
      ['missing both userId and anonymousId', () => post({ event: 'click' }), 400, 'invalid_request'],
      ['userId of 256 chars', () => post({ event: 'click', userId: 'u'.repeat(256) }), 400, 'invalid_request'],
      ['bad timestamp', () => post({ event: 'click', userId: 'u', timestamp: 'last tuesday' }), 400, 'invalid_request'],
      ['future timestamp', () => post({ event: 'click', userId: 'u', timestamp: new Date(Date.now() + 48 * 3600_000).toISOString() }), 400, 'invalid_request'],
      ['properties not an object', () => post({ event: 'click', userId: 'u', properties: 'pro' }), 400, 'invalid_request'],
      ['scroll depth 3', () => post({ event: 'scroll', userId: 'u', properties: { depth: 3 } }), 400, 'invalid_request'],
      ['an e-mail address as a property key', () => post({ event: 'click', userId: 'u', properties: { 'jane@example.com': true } }), 400, 'pii_detected'],
      ['a phone number as the event name', () => post({ event: '+44 20 7946 0958', userId: 'u' }), 400, 'pii_detected'],
      ['an e-mail address in the event name', () => post({ event: 'signup jane@example.com', userId: 'u' }), 400, 'pii_detected'],
    ];

    it.each(cases)('%s', async (_name, send, status, code) => {
      const before = await countEvents();
      const response = await send();
      expect(response.status).toBe(status);
      expect(response.body).toMatchObject({ error: code, message: expect.any(String) });
      expect(await countEvents()).toBe(before);
    });

    it('one bad event among 500 good ones: 400 naming its index and field', async () => {
      const before = await countEvents();
      const batch = Array.from({ length: 500 }, (_, i) => event(i));
      batch[317] = { ...batch[317], timestamp: 'not a time' };
      const response = await post(batch);
      expect(response.status).toBe(400);
      expect(response.body).toMatchObject({ error: 'invalid_request', details: [{ path: '317.timestamp', message: expect.any(String) }] });
      expect(await countEvents()).toBe(before);
    });
  });

  it('reports client and derived sessions, cutting derived ones after 30 minutes of inactivity', async () => {
    const at = (minutes: number) => new Date(Date.UTC(2026, 10, 19, 9, 0) + minutes * 60_000).toISOString();
    const e = (minutes: number, extra: Record<string, unknown> = {}) => ({ event: 'click', userId: 'sess-user', messageId: randomUUID(), timestamp: at(minutes), ...extra });
    await post([
      e(0), e(10), e(39), // one derived session: gaps of 10 and 29 minutes
      e(80), e(81), // a second: 41 minutes after the last
      e(20, { sessionId: 'client-1' }), e(50, { sessionId: 'client-1' }), // the client's own session
      { event: 'click', anonymousId: 'sess-anon', messageId: randomUUID(), timestamp: at(200) },
      { event: 'identify', anonymousId: 'sess-anon', userId: 'sess-user', messageId: randomUUID(), timestamp: at(201) },
    ]);
    const response = await request<{ sessions: Array<Record<string, unknown>> }>(`${t.api.baseUrl}/v1/users/sessions?userId=sess-user`, { token: t.org.token.secret });
    expect(response.status).toBe(200);
    expect(response.body.sessions).toEqual([
      { sessionId: `derived:${Date.parse(at(0))}`, derived: true, startedAt: at(0), endedAt: at(39), durationMs: 39 * 60_000, eventCount: 3 },
      { sessionId: 'client-1', derived: false, startedAt: at(20), endedAt: at(50), durationMs: 30 * 60_000, eventCount: 2 },
      { sessionId: `derived:${Date.parse(at(80))}`, derived: true, startedAt: at(80), endedAt: at(81), durationMs: 60_000, eventCount: 2 },
      // The anonymous event and the identify that linked it count for the user.
      { sessionId: `derived:${Date.parse(at(200))}`, derived: true, startedAt: at(200), endedAt: at(201), durationMs: 60_000, eventCount: 2 },
    ]);
    expect((await request(`${t.api.baseUrl}/v1/users/sessions?userId=nobody`, { token: t.org.token.secret })).status).toBe(404);
    expect((await request(`${t.api.baseUrl}/v1/users/sessions`, { token: t.org.token.secret })).status).toBe(400);
  });

  it('needs the ingest scope', async () => {
    const reader = await request<{ token: string }>(`${t.api.baseUrl}/v1/tokens`, {
      token: t.org.token.secret,
      method: 'POST',
      body: { environment: 'prod', scopes: ['read'] },
    });
    const response = await request(`${t.api.baseUrl}/v1/events`, { token: reader.body.token, method: 'POST', body: event(1) });
    expect(response.status).toBe(403);
  });

  it('accepts the real Segment client (analytics-node) with Basic auth and attributes identify', async () => {
    const analytics = new Analytics({ writeKey: t.org.token.secret, host: t.api.baseUrl, path: '/v1/batch', flushAt: 10, maxRetries: 0 });
    const errors: unknown[] = [];
    analytics.on('error', (e) => errors.push(e));
    analytics.page({ anonymousId: 'anon-seg', name: 'Pricing', properties: { url: 'https://shop.test/pricing' } });
    analytics.track({ anonymousId: 'anon-seg', event: 'add_to_cart', properties: { sku: 'A1' } });
    analytics.identify({ anonymousId: 'anon-seg', userId: 'seg-user', traits: { plan: 'pro' } });
    analytics.track({ userId: 'seg-user', event: 'checkout_start' });
    await analytics.closeAndFlush({ timeout: 10_000 });
    expect(errors).toEqual([]);

    const rows = await t.suite.sql<{ event: string; user_id: string | null; anonymous_id: string | null; screen: string | null }>(
      `SELECT event, user_id, anonymous_id, screen FROM events WHERE anonymous_id = 'anon-seg' OR user_id = 'seg-user' ORDER BY occurred_at, event`,
    );
    expect(rows.map((r) => r.event).sort()).toEqual(['add_to_cart', 'checkout_start', 'identify', 'page_view']);
    expect(rows.find((r) => r.event === 'page_view')?.screen).toBe('https://shop.test/pricing');
    // The anonymous history is attributed to the identified user.
    const attributed = await t.suite.sql<{ n: string }>(
      `SELECT count(*) AS n FROM events e
        WHERE e.user_id = 'seg-user'
           OR e.anonymous_id IN (SELECT anonymous_id FROM identities WHERE organization_id = $1 AND user_id = 'seg-user')`,
      [t.org.organization.id],
    );
    expect(Number(attributed[0].n)).toBe(4);
  });

  it('loses no acknowledged event when the API process is killed (SIGKILL) mid-stream', async () => {
    const victim = await startApi(t.suite.env);
    const acknowledged: string[] = [];
    let stop = false;
    const clients = Array.from({ length: 8 }, async (_, c) => {
      for (let i = 0; !stop; i++) {
        const batch = Array.from({ length: 20 }, (_, j) => event(j, { messageId: `kill-${c}-${i}-${j}-${randomUUID()}` }));
        const response = await request(`${victim.baseUrl}/v1/events`, { token: t.org.token.secret, method: 'POST', body: batch }).catch(() => undefined);
        if (!response) return;
        if (response.status === 200) acknowledged.push(...batch.map((e) => e.messageId));
      }
    });
    // Killed once well into the stream: many batches acknowledged, more on their way.
    await eventually('a hundred acknowledged events', () => (acknowledged.length > 100 ? true : undefined));
    await victim.kill();
    stop = true;
    await Promise.all(clients);
    expect(acknowledged.length).toBeGreaterThan(100);
    const stored = await t.suite.sql<{ n: string }>('SELECT count(*) AS n FROM events WHERE message_id = ANY($1)', [acknowledged]);
    expect(Number(stored[0].n)).toBe(acknowledged.length);
  });
});
