import { randomUUID } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { deflateSync, gzipSync } from 'node:zlib';
import RudderAnalytics from '@rudderstack/rudder-sdk-node';
import { Analytics } from '@segment/analytics-node';
import { eventually } from '../support/eventually';
import { request } from '../support/http';
import { cliJson, startApi } from '../support/processes';
import { sdkFixtures, type SdkRequest } from '../support/sdk-uploads';
import { withApiSuite } from '../support/suite';

interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  json: Record<string, unknown>;
}

/** A request exactly as given: no header added but Host (and Connection), chunks sent as they are. */
function send(baseUrl: string, req: SdkRequest): Promise<RawResponse> {
  const url = new URL(req.path, baseUrl);
  const body = Buffer.concat(req.chunks);
  const headers: Record<string, string> = { ...req.headers };
  if (req.method === 'POST' && !req.chunked) headers['Content-Length'] = String(body.length);
  return new Promise((resolve, reject) => {
    const outgoing = httpRequest(url, { method: req.method, headers }, (response) => {
      const parts: Buffer[] = [];
      response.on('data', (chunk: Buffer) => parts.push(chunk));
      response.on('end', () => {
        const text = Buffer.concat(parts).toString('utf8');
        let json: Record<string, unknown> = {};
        try {
          json = JSON.parse(text) as Record<string, unknown>;
        } catch {
          // Not JSON: the test reads `text`.
        }
        resolve({ status: response.statusCode ?? 0, headers: response.headers, text, json });
      });
    });
    outgoing.on('error', reject);
    // Without Content-Length, node:http sends Transfer-Encoding: chunked, one chunk per write.
    for (const chunk of req.chunks) outgoing.write(chunk);
    outgoing.end();
  });
}

const post = (path: string, headers: Record<string, string>, body: Buffer | string, chunked = false): SdkRequest => ({
  method: 'POST',
  path,
  headers,
  chunks: [Buffer.from(body)],
  chunked,
});

describe('real SDK traffic (Segment and RudderStack)', () => {
  const t = withApiSuite('sdk_traffic');
  let writeKey: string;

  beforeAll(async () => {
    const created = await cliJson<{ token: { secret: string } }>(t.suite.env, [
      'token', 'create', '--org', t.org.organization.id, '--env', 'dev', '--scopes', 'ingest',
    ]);
    writeKey = created.token.secret;
  });

  const exported = async (userId: string): Promise<string[]> => {
    const response = await request<{ events: Array<{ event: string }> }>(`${t.api.baseUrl}/v1/users/export?userId=${encodeURIComponent(userId)}`, {
      token: t.org.token.secret,
    });
    return response.status === 200 ? response.body.events.map((e) => e.event).sort() : [];
  };

  const storedCount = async (where: string, params: unknown[] = []): Promise<number> =>
    Number((await t.suite.sql<{ n: string }>(`SELECT count(*) AS n FROM events WHERE ${where}`, params))[0].n);

  describe('each mobile SDK: its settings fetch, then its upload, byte for byte', () => {
    it.each(['analytics-swift', 'analytics-kotlin', 'analytics_flutter', 'analytics-react-native', 'rudder-sdk-ios v1', 'rudder-sdk-android v1', 'rudder-sdk-kotlin v2', 'rudder-sdk-swift v2'])(
      '%s',
      async (sdk) => {
        const fixture = sdkFixtures(writeKey).find((f) => f.sdk === sdk)!;
        const settings = await send(t.api.baseUrl, fixture.settings);
        expect(settings.status).toBe(200);
        fixture.acceptsSettings(settings.json, writeKey);

        const upload = await send(t.api.baseUrl, fixture.upload);
        expect({ status: upload.status, body: upload.json }).toEqual({
          status: 200,
          body: { status: 'accepted', accepted: fixture.events.length, duplicates: 0, rejected: 0, suppressed: 0 },
        });
        expect(await exported(fixture.userId)).toEqual([...fixture.events].sort());

        // Sent again (an SDK retrying after a lost answer): stored once.
        const retried = await send(t.api.baseUrl, fixture.upload);
        expect(retried.json).toMatchObject({ accepted: 0, duplicates: fixture.events.length });
      },
    );

    it('points Segment SDKs at this deployment (no scheme, /v1) and counts messages per route and library', async () => {
      const [swift, , , , , , , rudderSwift] = sdkFixtures(writeKey);
      const settings = await send(t.api.baseUrl, swift.settings);
      const segment = (settings.json.integrations as Record<string, Record<string, unknown>>)['Segment.io'];
      expect(segment.apiHost).toBe(`${new URL(t.api.baseUrl).host}/v1`);

      const counted = async (labels: string): Promise<number> => {
        const text = await (await fetch(`${t.api.metricsUrl}/metrics`)).text();
        const line = text.split('\n').find((l) => l.startsWith(`foresight_segment_messages_total{${labels}}`));
        return line ? Number(line.split(' ').pop()) : 0;
      };
      const swiftAccepted = 'route="b",library="analytics-swift",outcome="accepted"';
      const rudderDuplicates = 'route="batch",library="rudder-sdk-swift",outcome="duplicate"';
      const rejectedOther = 'route="b",library="other",outcome="rejected"';
      const before = await Promise.all([swiftAccepted, rudderDuplicates, rejectedOther].map(counted));
      await send(t.api.baseUrl, swift.upload);
      await send(t.api.baseUrl, rudderSwift.upload);
      await send(t.api.baseUrl, rudderSwift.upload);
      const unknownLibrary = { writeKey, batch: [{ type: 'track', userId: 'u', context: { library: { name: `made-up-${randomUUID()}` } } }] };
      await send(t.api.baseUrl, post('/v1/b', { 'Content-Type': 'text/plain' }, JSON.stringify(unknownLibrary)));
      const after = await Promise.all([swiftAccepted, rudderDuplicates, rejectedOther].map(counted));
      expect(after.map((n, i) => n - before[i])).toEqual([2, 2, 1]);
    });
  });

  it("takes the settings' apiHost from PUBLIC_URL, else from the Host used, never from X-Forwarded-Host of an untrusted peer", async () => {
    const settingsFor = async (baseUrl: string, headers: Record<string, string>) => {
      const response = await send(baseUrl, { method: 'GET', path: `/v1/projects/${writeKey}/settings`, headers, chunks: [], chunked: false });
      return (response.json.integrations as Record<string, Record<string, unknown>>)['Segment.io'].apiHost;
    };
    expect(await settingsFor(t.api.baseUrl, { 'X-Forwarded-Host': 'attacker.test', 'X-Forwarded-Proto': 'http' })).toBe(`${new URL(t.api.baseUrl).host}/v1`);
    const published = await startApi({ ...t.suite.env, PUBLIC_URL: 'https://foresight.example.com' });
    try {
      expect(await settingsFor(published.baseUrl, { Host: 'other-name.test' })).toBe('foresight.example.com/v1');
    } finally {
      await published.stop();
    }
  });

  it('stores what @rudderstack/rudder-sdk-node sends on its defaults (gzip, application/x-www-form-urlencoded)', async () => {
    const userId = `rudder-node-${randomUUID()}`;
    const client = new RudderAnalytics(writeKey, { dataPlaneUrl: t.api.baseUrl });
    client.identify({ userId, anonymousId: `anon-${userId}`, traits: { plan: 'pro' } });
    client.track({ userId, event: "Viewed 'Pricing'", properties: { plan: 'pro' } });
    client.screen({ userId, name: 'Pricing' });
    client.group({ userId, groupId: 'acme' });
    client.alias({ userId, previousId: `old-${userId}` });
    await client.flush();
    expect(await exported(userId)).toEqual(['Viewed \'Pricing\'', 'alias', 'group', 'identify', 'screen_view'].sort());
    // alias links previousId to the user, as identify links anonymousId.
    const links = await t.suite.sql<{ anonymous_id: string }>('SELECT anonymous_id FROM identities WHERE organization_id = $1 AND user_id = $2 ORDER BY anonymous_id', [t.org.organization.id, userId]);
    expect(links.map((l) => l.anonymous_id)).toEqual([`anon-${userId}`, `old-${userId}`].sort());
  });

  it('stores what @segment/analytics-node sends on its defaults', async () => {
    const userId = `segment-node-${randomUUID()}`;
    const analytics = new Analytics({ writeKey, host: t.api.baseUrl });
    const errors: unknown[] = [];
    analytics.on('error', (error) => errors.push(error));
    analytics.track({ userId, event: 'Plan Upgraded', properties: { plan: 'pro' } });
    analytics.screen({ userId, name: 'Billing' });
    analytics.group({ userId, groupId: 'acme' });
    analytics.alias({ userId, previousId: `old-${userId}` });
    await analytics.closeAndFlush({ timeout: 10_000 });
    expect(errors).toEqual([]);
    expect(await exported(userId)).toEqual(['Plan Upgraded', 'alias', 'group', 'screen_view'].sort());
  });

  describe('bad input', () => {
    const batch = (userId: string, n = 1) =>
      JSON.stringify({ batch: Array.from({ length: n }, (_, i) => ({ type: 'track', event: `bad_input_${i}`, userId, messageId: randomUUID() })) });
    const auth = () => ({ Authorization: `Bearer ${writeKey}` });

    it('answers 413 to a gzip bomb (10 MiB of zeros) and stores nothing', async () => {
      const bomb = gzipSync(Buffer.concat([Buffer.from('{"batch":[{"type":"track","event":"bomb","userId":"bomb","properties":{"x":"'), Buffer.alloc(10 * 1024 * 1024, 0x30), Buffer.from('"}}]}')]));
      expect(bomb.length).toBeLessThan(64 * 1024);
      for (const path of ['/v1/batch', '/v1/events']) {
        const response = await send(t.api.baseUrl, post(path, { ...auth(), 'Content-Type': 'application/json', 'Content-Encoding': 'gzip' }, bomb));
        expect({ path, status: response.status, error: response.json.error }).toEqual({ path, status: 413, error: 'payload_too_large' });
      }
      expect(await storedCount(`user_id = 'bomb' OR event = 'bomb'`)).toBe(0);
    });

    it('answers 400 to a truncated gzip stream and to Content-Encoding: gzip on plain JSON; stores nothing', async () => {
      const userId = `truncated-${randomUUID()}`;
      const whole = gzipSync(batch(userId, 3));
      const truncated = await send(t.api.baseUrl, post('/v1/batch', { ...auth(), 'Content-Type': 'application/json', 'Content-Encoding': 'gzip' }, whole.subarray(0, whole.length - 12)));
      expect([truncated.status, truncated.json.error]).toEqual([400, 'invalid_request']);
      const lying = await send(t.api.baseUrl, post('/v1/b', { ...auth(), 'Content-Type': 'text/plain', 'Content-Encoding': 'gzip' }, batch(userId)));
      expect([lying.status, lying.json.error]).toEqual([400, 'invalid_request']);
      const lyingEvents = await send(t.api.baseUrl, post('/v1/events', { ...auth(), 'Content-Type': 'application/json', 'Content-Encoding': 'deflate' }, JSON.stringify({ event: 'x', userId })));
      expect(lyingEvents.status).toBe(400);
      expect(await storedCount('user_id = $1', [userId])).toBe(0);
    });

    it('decompresses deflate bodies on /v1/events too', async () => {
      const userId = `deflate-${randomUUID()}`;
      const response = await send(t.api.baseUrl, post('/v1/events', { ...auth(), 'Content-Type': 'application/json', 'Content-Encoding': 'deflate' }, deflateSync(JSON.stringify({ event: 'deflated', userId }))));
      expect(response.json).toMatchObject({ accepted: 1 });
    });

    it.each(['application/json', 'text/plain', 'application/x-www-form-urlencoded'])('answers 400 to a body that is not JSON sent as %s', async (contentType) => {
      const response = await send(t.api.baseUrl, post('/v1/batch', { ...auth(), 'Content-Type': contentType }, 'batch=not json'));
      expect([response.status, response.json.error]).toEqual([400, 'invalid_request']);
    });

    it('reads text/plain and urlencoded as JSON on the Segment routes only', async () => {
      const userId = `content-type-${randomUUID()}`;
      const response = await send(t.api.baseUrl, post('/v1/track', { ...auth(), 'Content-Type': 'application/x-www-form-urlencoded' }, JSON.stringify({ event: 'form_encoded', userId })));
      expect(response.json).toMatchObject({ accepted: 1 });
      const events = await send(t.api.baseUrl, post('/v1/events', { ...auth(), 'Content-Type': 'text/plain' }, JSON.stringify({ event: 'x', userId })));
      expect(events.status).toBe(415);
    });

    it('stores the valid messages of a mixed batch and counts the rest', async () => {
      const userId = `mixed-${randomUUID()}`;
      const body = {
        writeKey,
        batch: [
          { type: 'track', event: 'kept_track', userId, messageId: randomUUID(), properties: null },
          { type: 'track', userId, messageId: randomUUID() },
          { type: 'screen', userId, messageId: randomUUID(), properties: { name: 'Kept Screen' } },
          { type: 'track', event: 'future', userId, messageId: randomUUID(), timestamp: '2999-01-01T00:00:00Z' },
          { type: 'unknown', userId },
          { type: 'group', userId, groupId: 'acme', messageId: randomUUID(), timestamp: '2026-11-20T10:00:00.123456+02:00' },
        ],
      };
      const response = await send(t.api.baseUrl, post('/v1/b', { 'Content-Type': 'text/plain' }, JSON.stringify(body)));
      expect(response.json).toEqual({ status: 'accepted', accepted: 3, duplicates: 0, rejected: 3, suppressed: 0 });
      expect(await exported(userId)).toEqual(['group', 'kept_track', 'screen_view']);
    });

    it('answers 401, revealing nothing, to an unknown or revoked key on the settings routes and to a bad body writeKey', async () => {
      const unknown = `pat_dev_${randomUUID().replace(/-/g, '')}`;
      const created = await request<{ id: string; token: string }>(`${t.api.baseUrl}/v1/tokens`, { token: t.org.token.secret, method: 'POST', body: { environment: 'dev', scopes: ['ingest'] } });
      expect((await send(t.api.baseUrl, { method: 'GET', path: `/v1/projects/${created.body.token}/settings`, headers: {}, chunks: [], chunked: false })).status).toBe(200);
      const revoked = created.body.token;
      expect((await request(`${t.api.baseUrl}/v1/tokens/${created.body.id}`, { token: t.org.token.secret, method: 'DELETE' })).status).toBe(200);
      // A revoked token fails within 1 second (a replica's cache may hold it that long).
      await eventually('the revoked key to be refused', async () => {
        const settings = await send(t.api.baseUrl, { method: 'GET', path: `/v1/projects/${revoked}/settings`, headers: {}, chunks: [], chunked: false });
        return settings.status === 401 ? true : undefined;
      }, 1_500);
      const responses = [
        await send(t.api.baseUrl, { method: 'GET', path: `/v1/projects/${revoked}/settings`, headers: {}, chunks: [], chunked: false }),
        await send(t.api.baseUrl, { method: 'GET', path: '/sourceConfig', headers: { Authorization: `Basic ${Buffer.from(`${revoked}:`).toString('base64')}` }, chunks: [], chunked: false }),
        await send(t.api.baseUrl, { method: 'GET', path: `/v1/projects/${unknown}/settings`, headers: {}, chunks: [], chunked: false }),
        await send(t.api.baseUrl, { method: 'GET', path: '/sourceConfig?p=ios&v=1.29.0', headers: { Authorization: `Basic ${Buffer.from(`${unknown}:`).toString('base64')}` }, chunks: [], chunked: false }),
        await send(t.api.baseUrl, { method: 'GET', path: '/sourceConfig', headers: {}, chunks: [], chunked: false }),
        await send(t.api.baseUrl, post('/v1/b', { 'Content-Type': 'text/plain' }, JSON.stringify({ writeKey: unknown, batch: [{ type: 'track', event: 'x', userId: 'u' }] }))),
      ];
      for (const response of responses) {
        expect(response.status).toBe(401);
        expect(Object.keys(response.json).sort()).toEqual(['error', 'message']);
        expect(response.text).not.toContain('Segment.io');
        expect(response.text).not.toContain('source');
      }
      // A token without the ingest scope is no write key either.
      const reader = await request<{ token: string }>(`${t.api.baseUrl}/v1/tokens`, { token: t.org.token.secret, method: 'POST', body: { environment: 'dev', scopes: ['read'] } });
      const forbidden = await send(t.api.baseUrl, { method: 'GET', path: `/v1/projects/${reader.body.token}/settings`, headers: {}, chunks: [], chunked: false });
      expect(forbidden.status).toBe(403);
    });

    it('answers CORS on the new routes and the settings routes', async () => {
      for (const path of ['/v1/b', '/v1/alias', '/v1/group']) {
        const response = await fetch(`${t.api.baseUrl}${path}`, { method: 'OPTIONS', headers: { origin: 'https://shop.test', 'access-control-request-method': 'POST' } });
        expect([path, response.status, response.headers.get('access-control-allow-origin')]).toEqual([path, 204, '*']);
      }
      // Browser SDKs fetch their settings cross-origin (RudderStack's with Basic auth, so preflighted).
      const preflight = await fetch(`${t.api.baseUrl}/sourceConfig`, { method: 'OPTIONS', headers: { origin: 'https://shop.test', 'access-control-request-method': 'GET' } });
      expect([preflight.status, preflight.headers.get('access-control-allow-methods')]).toEqual([204, 'GET']);
      const settings = await fetch(`${t.api.baseUrl}/v1/projects/${writeKey}/settings`, { headers: { origin: 'https://shop.test' } });
      expect([settings.status, settings.headers.get('access-control-allow-origin')]).toEqual([200, '*']);
    });
  });
});
