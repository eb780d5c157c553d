import { randomBytes } from 'node:crypto';
import { type JsonResponse, request } from '../support/http';
import { cliJson, type RunningProcess, startApi } from '../support/processes';
import { type OrganizationWithToken, TestSuite } from '../support/suite';

/**
 * Issue 15, the HTTP edge against hostile clients: unauthenticated floods, forwarded headers from
 * anyone, Basic auth off the Segment routes, and the removed browser signature. Each API process
 * here has Redis keys of its own (rate-limit buckets included), so one test's refusals never decide
 * another's.
 */
describe('hostile clients at the HTTP edge', () => {
  let suite: TestSuite;
  let org: OrganizationWithToken;

  beforeAll(async () => {
    suite = await TestSuite.create('hostilehttp');
    org = await suite.createOrganization('Hostile HTTP');
  });

  afterAll(async () => {
    await suite?.destroy();
  });

  let processes = 0;

  /** An API process for one test, with extra configuration. */
  async function withApi(env: Record<string, string>, work: (api: RunningProcess) => Promise<void>): Promise<void> {
    const api = await startApi({ ...suite.env, REDIS_PREFIX: `${suite.env.REDIS_PREFIX}api${++processes}:`, ...env });
    try {
      await work(api);
    } finally {
      await api.stop();
    }
  }

  const madeUpToken = () => `pat_prod_${randomBytes(32).toString('hex')}`;
  const spoofedAddress = () => `198.51.100.${Math.floor(Math.random() * 254) + 1}`;

  const expectInvalidToken = (response: JsonResponse) => {
    expect(response.status).toBe(401);
    expect(response.body).toEqual({ error: 'invalid_token', message: expect.any(String) });
    expect(response.headers.get('www-authenticate')).toBe('Bearer error="invalid_token"');
  };

  describe('finding 4: unauthenticated floods', () => {
    it('limits requests with made-up tokens per client address before any lookup, whatever X-Forwarded-For says, and keeps serving verified tokens', async () => {
      await withApi({ UNAUTHENTICATED_RATE_LIMIT_PER_MINUTE: '20', UNAUTHENTICATED_BURST_PER_MINUTE: '40' }, async (api) => {
        // A good token's first burst, before this process has verified it, spends nothing of the address's budget.
        const firstBurst = await Promise.all(Array.from({ length: 100 }, () => request(`${api.baseUrl}/v1/health`, { token: org.token.secret })));
        expect(firstBurst.map((r) => r.status)).toEqual(firstBurst.map(() => 200));

        const responses: JsonResponse[] = [];
        for (let wave = 0; wave < 10; wave++) {
          responses.push(
            ...(await Promise.all(
              Array.from({ length: 20 }, () =>
                request(`${api.baseUrl}/v1/health`, { token: madeUpToken(), headers: { 'x-forwarded-for': spoofedAddress() } }),
              ),
            )),
          );
        }
        const refused = responses.filter((r) => r.status === 401);
        const limited = responses.filter((r) => r.status === 429);
        expect(refused.length + limited.length).toBe(200);
        // A bucket of 20 refilled at 20 a minute: most of 200 made-up tokens never reach a lookup.
        expect(refused.length).toBeLessThan(100);
        expect(limited[0].body).toEqual({ error: 'rate_limited', retry_after: expect.any(Number) });
        expect(limited[0].headers.get('retry-after')).toBe(String((limited[0].body as { retry_after: number }).retry_after));
        expect(limited[0].headers.get('ratelimit-limit')).toBe('20');
        expect(limited[0].headers.get('ratelimit-remaining')).toBe('0');

        // Missing and malformed headers share the address's budget.
        expect((await request(`${api.baseUrl}/v1/health`)).status).toBe(429);
        expect((await request(`${api.baseUrl}/v1/health`, { headers: { authorization: 'Token x' } })).status).toBe(429);

        const verified = await request(`${api.baseUrl}/v1/health`, { token: org.token.secret });
        expect(verified.status).toBe(200);
        expect(verified.headers.get('ratelimit-limit')).toBe('300');
      });
    });
  });

  describe('finding 12: forwarded headers and absolute links', () => {
    beforeAll(async () => {
      // Two logged predictions, so a page of one has a next page.
      for (const minute of [1, 2]) {
        await suite.sql(
          `INSERT INTO predictions (organization_id, user_id, model_id, model_name, version_id, version, label, positive, confidence, inference_ms, predicted_at)
           VALUES ($1, 'user-1', 'mdl_aaaaaaaaaaaaaaaa', 'churn_7d', 'ver_1', 1, 'likely', true, 0.8, 1, $2)`,
          [org.organization.id, `2026-11-01T00:0${minute}:00Z`],
        );
      }
    });

    const nextLink = async (api: RunningProcess, headers: Record<string, string>) => {
      const page = await request(`${api.baseUrl}/v1/export/predictions?since=2026-11-01&limit=1`, { token: org.token.secret, headers });
      expect(page.status).toBe(200);
      return /^<([^>]+)>; rel="next"$/.exec(page.headers.get('link') ?? '')?.[1];
    };
    const hostile = { 'x-forwarded-host': 'evil.example', 'x-forwarded-proto': 'https', 'x-forwarded-for': '203.0.113.9' };

    it('ignores X-Forwarded-* from a client that is not a configured proxy: the Link header names this server', async () => {
      await withApi({}, async (api) => {
        const link = await nextLink(api, hostile);
        expect(link).toMatch(new RegExp(`^${api.baseUrl}/v1/export/predictions\\?`));
        expect(link).not.toContain('evil.example');
      });
    });

    it('builds links from PUBLIC_URL when set, even behind a trusted proxy forwarding another host', async () => {
      await withApi({ PUBLIC_URL: 'https://foresight.example.com/api', TRUSTED_PROXIES: '127.0.0.1' }, async (api) => {
        const link = await nextLink(api, hostile);
        expect(link).toMatch(/^https:\/\/foresight\.example\.com\/api\/v1\/export\/predictions\?since=2026-11-01&limit=1&cursor=/);
        // The next page is really served there (the path and query under the public base are ours).
        const next = new URL((link as string).replace('https://foresight.example.com/api', api.baseUrl));
        expect((await request(next.toString(), { token: org.token.secret })).body).toHaveLength(1);
      });
    });

    it('takes the client address from X-Forwarded-For only when the peer is a trusted proxy', async () => {
      const limits = { UNAUTHENTICATED_RATE_LIMIT_PER_MINUTE: '1', UNAUTHENTICATED_BURST_PER_MINUTE: '3' };
      const anonymousFrom = (api: RunningProcess, address: string) =>
        request(`${api.baseUrl}/v1/health`, { headers: { 'x-forwarded-for': address } });
      await withApi({ ...limits, TRUSTED_PROXIES: '127.0.0.0/8' }, async (api) => {
        const first = [await anonymousFrom(api, '192.0.2.1'), await anonymousFrom(api, '192.0.2.1'), await anonymousFrom(api, '192.0.2.1')];
        expect(first.map((r) => r.status)).toContain(429);
        expectInvalidToken(await anonymousFrom(api, '192.0.2.2'));
      });
      await withApi(limits, async (api) => {
        const statuses = [];
        for (const address of ['192.0.2.1', '192.0.2.2', '192.0.2.3', '192.0.2.4']) statuses.push((await anonymousFrom(api, address)).status);
        expect(statuses).toContain(429);
      });
    });
  });

  describe('finding 13: Basic auth only on the Segment-compatible routes', () => {
    const basic = (token: string) => `Basic ${Buffer.from(`${token}:`).toString('base64')}`;

    it('refuses Basic with a valid admin token everywhere else, and takes it on the Segment routes', async () => {
      await withApi({}, async (api) => {
        const authorization = basic(org.token.secret);
        for (const [method, path] of [
          ['GET', '/v1/health'],
          ['GET', '/v1/tokens'],
          ['GET', '/v1/models'],
          ['GET', '/v1/webhooks'],
          ['GET', '/v1/users/export?userId=someone'],
          ['GET', '/v1/export/predictions?since=2026-11-01'],
        ]) {
          expectInvalidToken(await request(`${api.baseUrl}${path}`, { method, headers: { authorization } }));
        }
        expectInvalidToken(await request(`${api.baseUrl}/v1/events`, { method: 'POST', body: { event: 'click', userId: 'u-basic' }, headers: { authorization } }));
        expectInvalidToken(await request(`${api.baseUrl}/v1/tokens`, { method: 'POST', body: { environment: 'prod', scopes: ['admin'] }, headers: { authorization } }));

        const track = await request(`${api.baseUrl}/v1/track`, {
          method: 'POST',
          body: { type: 'track', event: 'click', userId: 'u-basic', messageId: 'basic-1' },
          headers: { authorization },
        });
        expect(track).toMatchObject({ status: 200, body: { status: 'accepted', accepted: 1 } });
        expect((await request(`${api.baseUrl}/v1/tokens`, { token: org.token.secret })).status).toBe(200);
      });
    });
  });

  describe('finding 16: no browser signature', () => {
    it('answers a made-up token 401 whatever signature it sends, and ignores the header on valid requests', async () => {
      const { token } = await cliJson<{ token: { secret: string } }>(suite.env, [
        'token', 'create', '--org', org.organization.id, '--env', 'prod', '--scopes', 'ingest',
      ]);
      await withApi({}, async (api) => {
        const headers = { 'x-foresight-signature': 'v1=not-a-signature' };
        const body = { event: 'click', userId: 'u-signed', messageId: 'sig-gone' };
        expectInvalidToken(await request(`${api.baseUrl}/v1/events`, { method: 'POST', token: madeUpToken(), body, headers }));
        expect(await request(`${api.baseUrl}/v1/events`, { method: 'POST', token: token.secret, body, headers })).toMatchObject({
          status: 200,
          body: { accepted: 1 },
        });

        const preflight = await fetch(`${api.baseUrl}/v1/events`, {
          method: 'OPTIONS',
          headers: { origin: 'https://shop.example', 'access-control-request-method': 'POST' },
        });
        const allowed = preflight.headers.get('access-control-allow-headers')?.split(', ') ?? [];
        expect(allowed).toEqual(expect.arrayContaining(['authorization', 'content-type']));
        expect(allowed).not.toContain('x-foresight-signature');
      });
    });
  });
});
