import type { BrowserContext, Page, Request } from 'playwright-core';
import { EventPayloadCipherService } from '@foresight/events';
import { Encryptor } from '@foresight/platform';
import { launchChromium } from '../support/chromium';
import { eventually } from '../support/eventually';
import { request } from '../support/http';
import { cliJson } from '../support/processes';
import { withApiSuite } from '../support/suite';

/** The example page flushes every second: three flushes' worth of time in which nothing may be sent. */
const QUIET_PERIOD_MS = 3_000;

interface StoredEvent {
  event: string;
  session_id: string | null;
  anonymous_id: string | null;
  user_id: string | null;
  screen: string | null;
  scroll_depth: number | null;
  dwell_ms: number | null;
  hesitation_ms: number | null;
  properties: Record<string, unknown> | null;
  context: Record<string, unknown> | null;
}

/** What the page sent to /v1/events: each request's headers, and how many are still in flight. */
interface IngestionTraffic {
  headers: Array<Record<string, string>>;
  inFlight: number;
}

describe('web SDK', () => {
  const t = withApiSuite('sdk');
  let ingestToken: string;
  let browser: BrowserContext;
  let closeBrowser: (() => Promise<void>) | undefined;

  beforeAll(async () => {
    const created = await cliJson<{ token: { secret: string } }>(t.suite.env, [
      'token', 'create', '--org', t.org.organization.id, '--env', 'dev', '--scopes', 'ingest',
    ]);
    ingestToken = created.token.secret;
    ({ browser, close: closeBrowser } = await launchChromium());
  });

  afterAll(async () => {
    await closeBrowser?.();
  });

  /**
   * The events the browser SDK sent (the CORS tests post others with plain fetch). Properties and
   * context are encrypted at rest; the test opens them with the suite's key, as the service does.
   */
  const storedEvents = async (): Promise<StoredEvent[]> => {
    const cipher = new EventPayloadCipherService(new Encryptor([Buffer.from(t.suite.env.ENCRYPTION_KEY, 'hex')]));
    const rows = await t.suite.sql<Omit<StoredEvent, 'properties' | 'context'> & { message_id: string; encryption_key_id: string | null; properties: string | null; context: string | null }>(
      `SELECT message_id, encryption_key_id, event, session_id, anonymous_id, user_id, screen, scroll_depth, dwell_ms, hesitation_ms, properties, context
         FROM events WHERE organization_id = $1 ORDER BY occurred_at, event`,
      [t.org.organization.id],
    );
    const organizationId = t.org.organization.id;
    return rows
      .map(({ message_id, encryption_key_id, properties, context, ...row }) => ({
        ...row,
        properties: cipher.open(organizationId, message_id, 'properties', properties, encryption_key_id),
        context: cipher.open(organizationId, message_id, 'context', context, encryption_key_id),
      }))
      .filter((row) => (row.context?.library as { name?: string } | undefined)?.name === 'foresight-web');
  };

  describe('served by the API', () => {
    it('serves the bundle without a token, with a JavaScript type, an ETag and revalidation', async () => {
      const response = await fetch(`${t.api.baseUrl}/sdk/foresight.js`);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe('application/javascript; charset=utf-8');
      expect(response.headers.get('cache-control')).toMatch(/max-age=\d+/);
      expect(await response.text()).toContain('Foresight');
      const etag = response.headers.get('etag');
      expect(etag).toMatch(/^".+"$/);
      const revalidated = await fetch(`${t.api.baseUrl}/sdk/foresight.js`, { headers: { 'if-none-match': etag as string } });
      expect(revalidated.status).toBe(304);
    });

    it('serves the example page for each of its sections', async () => {
      for (const path of ['/sdk/example', '/sdk/example/pricing']) {
        const response = await fetch(`${t.api.baseUrl}${path}`);
        expect(response.status).toBe(200);
        expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
        expect(await response.text()).toContain('<script src="/sdk/foresight.js"></script>');
      }
    });
  });

  describe('cross-origin ingestion', () => {
    const preflight = (path: string) =>
      fetch(`${t.api.baseUrl}${path}`, {
        method: 'OPTIONS',
        headers: {
          origin: 'https://shop.example',
          'access-control-request-method': 'POST',
          'access-control-request-headers': 'authorization,content-type',
        },
      });

    it('answers preflights of the ingestion routes, without credentials', async () => {
      for (const path of ['/v1/events', '/v1/batch', '/v1/track']) {
        const response = await preflight(path);
        expect(response.status).toBe(204);
        expect(response.headers.get('access-control-allow-origin')).toBe('*');
        expect(response.headers.get('access-control-allow-methods')).toBe('POST');
        expect(response.headers.get('access-control-allow-headers')).toMatch(/^authorization, content-type, x-retry-count, anonymousid, sentat, rsa-/);
        expect(response.headers.get('access-control-allow-credentials')).toBeNull();
        expect(response.headers.get('access-control-max-age')).toBe('7200');
      }
      const incomplete = await fetch(`${t.api.baseUrl}/v1/events`, { method: 'OPTIONS', headers: { origin: 'https://shop.example' } });
      expect(incomplete.status).toBe(400);
      expect(await incomplete.json()).toMatchObject({ error: 'invalid_request' });
    });

    it('lets the page read the response of an ingestion request, and its rate-limit headers, even an error', async () => {
      const headers = { origin: 'https://shop.example' };
      const accepted = await request(`${t.api.baseUrl}/v1/events`, { token: ingestToken, method: 'POST', headers, body: { event: 'click', userId: 'cors-reader' } });
      const refused = await request(`${t.api.baseUrl}/v1/events`, { token: ingestToken, method: 'POST', headers, body: { event: 'click' } });
      expect([accepted.status, refused.status]).toEqual([200, 400]);
      for (const response of [accepted, refused]) {
        expect(response.headers.get('access-control-allow-origin')).toBe('*');
        expect(response.headers.get('access-control-expose-headers')).toContain('ratelimit-remaining');
      }
    });

    it('gives no other route to other origins', async () => {
      for (const path of ['/v1/models', '/v1/tokens', '/v1/users/export']) {
        const response = await preflight(path);
        expect(response.status).toBe(404);
        expect(response.headers.get('access-control-allow-origin')).toBeNull();
      }
      const read = await request(`${t.api.baseUrl}/v1/health`, { token: t.org.token.secret, headers: { origin: 'https://shop.example' } });
      expect(read.status).toBe(200);
      expect(read.headers.get('access-control-allow-origin')).toBeNull();
    });
  });

  describe('request bodies', () => {
    const post = (body: string) =>
      request(`${t.api.baseUrl}/v1/events`, { token: ingestToken, method: 'POST', body, headers: { 'content-type': 'application/json' } });

    it('parses JSON as Fastify does: malformed or prototype-poisoning bodies are invalid_request, a missing token 401', async () => {
      for (const body of ['{"event": "click",', '{"event":"click","anonymousId":"a","__proto__":{"admin":true}}']) {
        expect(await post(body)).toMatchObject({ status: 400, body: { error: 'invalid_request' } });
      }
      const anonymous = await request(`${t.api.baseUrl}/v1/events`, { method: 'POST', body: '{}' });
      expect(anonymous.status).toBe(401);
    });
  });

  describe('in a real browser', () => {
    let page: Page;
    const traffic: IngestionTraffic = { headers: [], inFlight: 0 };
    const pageErrors: string[] = [];

    beforeAll(async () => {
      page = await browser.newPage();
      const isIngestion = (url: string, method: string) => method === 'POST' && url.startsWith(`${t.api.baseUrl}/v1/events`);
      page.on('request', (r) => {
        if (!isIngestion(r.url(), r.method())) return;
        traffic.headers.push(r.headers());
        traffic.inFlight++;
      });
      const settled = (r: Request) => {
        if (isIngestion(r.url(), r.method())) traffic.inFlight--;
      };
      page.on('requestfinished', settled);
      page.on('requestfailed', settled);
      page.on('pageerror', (error) => pageErrors.push(error.message));
    });

    // The page comes from http://localhost:<port> and posts to http://127.0.0.1:<port>: another origin, so CORS is exercised.
    const pageOrigin = () => t.api.baseUrl.replace('127.0.0.1', 'localhost');
    const exampleUrl = () => `${pageOrigin()}/sdk/example#token=${ingestToken}&apiHost=${encodeURIComponent(t.api.baseUrl)}`;
    const eventsNamed = (rows: StoredEvent[], name: string) => rows.filter((row) => row.event === name);

    /** Waits until nothing the page sent is still on its way. */
    const quiet = () => eventually('requests in flight to finish', () => (traffic.inFlight === 0 ? true : undefined), 20_000);

    it('captures clicks, scroll depth, dwell, hesitation and SPA navigation in one session', async () => {
      await page.goto(exampleUrl());
      await page.click('#add-to-cart');
      await page.mouse.move(300, 300);
      await page.mouse.wheel(0, 20_000);
      // Scroll depth is reported per page: let the wheel reach the bottom before leaving.
      const deepest = await eventually('the scroll to the bottom of the page', async () => {
        const depth = Math.max(0, ...eventsNamed(await storedEvents(), 'scroll').map((row) => row.scroll_depth ?? 0));
        return depth === 1 ? depth : undefined;
      }, 20_000);
      expect(deepest).toBe(1);
      await page.click('nav a[href="/sdk/example/pricing"]');
      await page.click('#sign-in');

      const rows = await eventually('the first page, its clicks, scroll and navigation', async () => {
        const r = await storedEvents();
        const complete =
          eventsNamed(r, 'page_view').length === 2 &&
          eventsNamed(r, 'scroll').length > 0 &&
          ['click', 'add_to_cart', 'page_leave', 'identify'].every((name) => eventsNamed(r, name).length > 0);
        return complete ? r : undefined;
      }, 20_000);
      const sessions = new Set(rows.map((row) => row.session_id));
      expect(sessions.size).toBe(1);
      expect([...sessions][0]).toMatch(/^[0-9a-f]{32}$/);
      expect(new Set(rows.map((row) => row.anonymous_id)).size).toBe(1);

      const home = `${pageOrigin()}/sdk/example`;
      expect(eventsNamed(rows, 'page_view').map((row) => row.screen)).toEqual([home, `${home}/pricing`]);
      const [leave] = eventsNamed(rows, 'page_leave');
      expect(leave.screen).toBe(home);
      expect(leave.dwell_ms).toEqual(expect.any(Number));
      // On each page, one event per newly reached quarter of it, deeper each time.
      const depths = eventsNamed(rows, 'scroll')
        .filter((row) => (row.context?.page as { url?: string } | undefined)?.url === home)
        .map((row) => row.scroll_depth as number);
      expect(depths[depths.length - 1]).toBe(1);
      expect(depths).toEqual([...depths].sort((a, b) => a - b));
      expect(new Set(depths.map((depth) => Math.floor(depth * 4))).size).toBe(depths.length);

      const addToCartClick = eventsNamed(rows, 'click').find((row) => row.properties?.textLength === 'Add to cart'.length);
      expect(addToCartClick?.properties).toEqual({ role: 'button', textLength: 11, hesitationMs: expect.any(Number) });
      expect(addToCartClick?.hesitation_ms).toBeGreaterThanOrEqual(0);
      expect(eventsNamed(rows, 'add_to_cart')[0].properties).toEqual({ sku: 'A1', plan: 'pro' });

      // identify links the anonymous history to the user the page named, and nothing else carries a user id before it.
      const identify = eventsNamed(rows, 'identify')[0];
      expect(identify.user_id).toBe('demo-user');
      const links = await t.suite.sql('SELECT anonymous_id, user_id FROM identities WHERE organization_id = $1', [t.org.organization.id]);
      expect(links).toEqual([{ anonymous_id: identify.anonymous_id, user_id: 'demo-user' }]);

      // The token lives in the page's fragment: it must never be stored with the events.
      expect(JSON.stringify(rows)).not.toContain(ingestToken);
      // Bearer only: the signature header the SDK used to add is gone.
      expect(traffic.headers.length).toBeGreaterThan(0);
      expect(traffic.headers.every((headers) => headers.authorization === `Bearer ${ingestToken}` && !('x-foresight-signature' in headers))).toBe(true);
    });

    it('after disableTracking() sends and stores nothing, even after a reload', async () => {
      await quiet();
      await page.click('#disable-tracking');
      const storedBefore = (await storedEvents()).length;
      const sentBefore = traffic.headers.length;

      await page.click('#add-to-cart');
      await page.mouse.wheel(0, -20_000);
      await page.click('nav a[href="/sdk/example/about"]');
      // Only the consent choice is left in storage: no queue, no visitor id, no session.
      expect(await page.evaluate('Object.keys(localStorage)')).toEqual(['foresight:consent']);
      await page.reload();
      await page.click('#checkout');
      // Deliberately waited, it is what is tested: flushes come and go, and nothing is sent.
      await page.waitForTimeout(QUIET_PERIOD_MS);

      expect(traffic.headers.length).toBe(sentBefore);
      expect((await storedEvents()).length).toBe(storedBefore);
      expect(await page.evaluate('Object.keys(localStorage)')).toEqual(['foresight:consent']);
    });

    it('after enableTracking() captures again, as a new visitor', async () => {
      const before = await storedEvents();
      await page.click('#enable-tracking');
      await page.click('#checkout');

      const rows = await eventually('events after consent', async () => {
        const r = await storedEvents();
        return eventsNamed(r, 'checkout_start').length === 1 ? r : undefined;
      }, 20_000);
      const added = rows.slice(before.length);
      expect(added.map((row) => row.event).sort()).toEqual(expect.arrayContaining(['checkout_start', 'click', 'page_view']));
      expect(eventsNamed(added, 'page_view')[0].screen).toBe(`${pageOrigin()}/sdk/example/about`);
      expect(new Set(added.map((row) => row.session_id)).size).toBe(1);
      // disableTracking() forgot the visitor: what follows cannot be joined to what came before.
      expect(added[0].anonymous_id).not.toBe(before[0].anonymous_id);
      expect(added[0].session_id).not.toBe(before[0].session_id);
      expect(pageErrors).toEqual([]);
    });
  });
});
