import { randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import type { BrowserContext, Page } from 'playwright-core';
import { launchChromium } from '../support/chromium';
import { eventually } from '../support/eventually';
import { request } from '../support/http';
import { cliJson } from '../support/processes';
import { withApiSuite } from '../support/suite';

/**
 * The real browser SDKs, bundled from node_modules as a site would (esbuild, one file each, nothing
 * loaded from a CDN), each called with its default options but the host and key. The page calls
 * `window.run(config)`, which makes every call the SDK has, and then posts what a retry of the SDK
 * would add (its retry headers) so that the preflight is checked against those too.
 */
const ENTRIES = {
  // analytics-next: settings from `<cdnURL>/v1/projects/<writeKey>/settings`, then posts to the apiHost they name.
  segment: `
    import { AnalyticsBrowser } from '@segment/analytics-next';
    window.run = async ({ writeKey, api, userId, aliasTo, integrations }) => {
      const analytics = AnalyticsBrowser.load({ writeKey, cdnURL: api }, integrations ? { integrations } : undefined);
      await analytics.identify(userId, { plan: 'pro' });
      await analytics.track('Browser Track', { sku: 'A1' });
      await analytics.page();
      await analytics.screen('Home');
      await analytics.group('acme', { name: 'Acme' });
      await analytics.alias(aliasTo);
      return fetch(api + '/v1/t', {
        method: 'POST',
        headers: { 'Content-Type': 'text/plain', Authorization: 'Basic ' + btoa(writeKey + ':'), 'X-Retry-Count': '1' },
        body: JSON.stringify({ type: 'track', event: 'Retried Track', userId }),
      }).then((response) => response.status, () => 0);
    };`,
  // RudderStack v3, the build with its plugins bundled: no plugin fetched from cdn.rudderlabs.com.
  rudderstack: `
    import { RudderAnalytics } from '@rudderstack/analytics-js/bundled';
    window.run = ({ writeKey, api, userId, aliasTo }) => new Promise((resolve) => {
      const analytics = new RudderAnalytics();
      analytics.load(writeKey, api, { configUrl: api });
      analytics.identify(userId, { plan: 'pro' });
      analytics.track('Browser Track', { sku: 'A1' });
      analytics.page();
      analytics.group('acme', { name: 'Acme' });
      analytics.alias(aliasTo, userId, {}, () => resolve(fetch(api + '/v1/track', {
        method: 'POST',
        headers: {
          'Content-Type': 'application/json;charset=UTF-8', Authorization: 'Basic ' + btoa(writeKey + ':'),
          AnonymousId: btoa('anonymous'), SentAt: new Date().toISOString(), 'Rsa-Recovered': 'true', 'Rsa-Retry-Attempt': '1',
          'Rsa-Since-Last-Attempt': '1000', 'Rsa-Since-First-Attempt': '1000', 'Rsa-Retry-Reason': 'server-500',
        },
        body: JSON.stringify({ type: 'track', event: 'Retried Track', userId }),
      }).then((response) => response.status, () => 0)));
    });`,
};
type Sdk = keyof typeof ENTRIES;

/** What went wrong in the page: failed requests, error answers, console errors. */
interface Trouble {
  failed: string[];
  errorAnswers: string[];
  consoleErrors: string[];
  hosts: Set<string>;
}

describe('browser SDKs in Chromium (analytics-next, RudderStack v3)', () => {
  const t = withApiSuite('browser_sdks');
  let writeKey: string;
  let browser: BrowserContext;
  let closeBrowser: (() => Promise<void>) | undefined;
  let site: Server;
  let siteOrigin: string;
  const artifacts = mkdtempSync(join(tmpdir(), 'foresight-browser-sdks-'));

  beforeAll(async () => {
    const created = await cliJson<{ token: { secret: string } }>(t.suite.env, ['token', 'create', '--org', t.org.organization.id, '--env', 'dev', '--scopes', 'ingest']);
    writeKey = created.token.secret;
    const bundles = new Map<string, string>();
    for (const [sdk, contents] of Object.entries(ENTRIES)) {
      const result = await build({
        stdin: { contents, resolveDir: process.cwd(), loader: 'js' },
        bundle: true,
        format: 'iife',
        platform: 'browser',
        target: 'chrome120',
        define: { 'process.env.NODE_ENV': '"production"' },
        write: false,
        logLevel: 'silent',
      });
      bundles.set(`/${sdk}.js`, result.outputFiles[0].text);
    }
    // Another origin than the API (localhost vs 127.0.0.1, another port): CORS for real.
    site = createServer((req, res) => {
      const path = new URL(req.url ?? '/', 'http://site').pathname;
      const script = bundles.get(path);
      if (script !== undefined) {
        res.writeHead(200, { 'content-type': 'application/javascript; charset=utf-8' }).end(script);
      } else if (path.endsWith('.html')) {
        const sdk = path.slice(1, -'.html'.length);
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(
          `<!doctype html><html><head><title>${sdk}</title><link rel="icon" href="data:,"><script src="/${sdk}.js"></script></head>` +
            `<body><h1>${sdk} browser SDK</h1><pre id="log">loading</pre></body></html>`,
        );
      } else {
        res.writeHead(404).end();
      }
    });
    await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
    const address = site.address();
    siteOrigin = `http://localhost:${typeof address === 'object' && address ? address.port : 0}`;
    ({ browser, close: closeBrowser } = await launchChromium());
  }, 120_000);

  afterAll(async () => {
    await closeBrowser?.();
    await new Promise((resolve) => site?.close(resolve));
  });

  const exported = async (userId: string): Promise<string[]> => {
    const response = await request<{ events: Array<{ event: string }> }>(`${t.api.baseUrl}/v1/users/export?userId=${encodeURIComponent(userId)}`, { token: t.org.token.secret });
    return response.status === 200 ? response.body.events.map((e) => e.event).sort() : [];
  };

  /** Opens the SDK's page, watching every request it makes, and runs its calls; answers the retry post's status. */
  const runPage = async (sdk: Sdk, config: Record<string, unknown>): Promise<{ page: Page; trouble: Trouble; retryStatus: number; posts: Array<{ path: string; headers: Record<string, string> }> }> => {
    const page = await browser.newPage();
    const trouble: Trouble = { failed: [], errorAnswers: [], consoleErrors: [], hosts: new Set() };
    const posts: Array<{ path: string; headers: Record<string, string> }> = [];
    page.on('request', (r) => {
      trouble.hosts.add(new URL(r.url()).host);
      if (r.method() === 'POST' && r.url().startsWith(t.api.baseUrl)) posts.push({ path: new URL(r.url()).pathname, headers: r.headers() });
    });
    page.on('requestfailed', (r) => trouble.failed.push(`${r.method()} ${r.url()}: ${r.failure()?.errorText}`));
    page.on('response', (r) => {
      if (r.status() >= 400) trouble.errorAnswers.push(`${r.status()} ${r.request().method()} ${r.url()}`);
    });
    page.on('console', (m) => {
      if (m.type() === 'error') trouble.consoleErrors.push(m.text());
    });
    page.on('pageerror', (error) => trouble.consoleErrors.push(error.message));
    await page.goto(`${siteOrigin}/${sdk}.html`);
    // -1 if the SDK never got through its calls (then storedNames shows the trouble it ran into).
    const run = `window.run(${JSON.stringify({ writeKey, api: t.api.baseUrl, ...config })})`;
    const retryStatus = await page.evaluate<number>(`Promise.race([${run}, new Promise((resolve) => setTimeout(() => resolve(-1), 20000))])`);
    return { page, trouble, retryStatus, posts };
  };

  /** The names of the events stored for both users, once `expected` are all there; else what went wrong in the page. */
  const storedNames = async (userIds: string[], expected: string[], trouble: Trouble): Promise<string[]> => {
    try {
      return await eventually('the calls to be stored', async () => {
        // The alias event belongs to both users (previousId and userId): each name once.
        const stored = [...new Set((await Promise.all(userIds.map(exported))).flat())].sort();
        return expected.every((name) => stored.includes(name)) ? stored : undefined;
      }, 20_000);
    } catch (error) {
      throw new Error(`${(error as Error).message}; the page saw ${JSON.stringify({ ...trouble, hosts: [...trouble.hosts] }, null, 1)}`, { cause: error });
    }
  };

  const expectNoTrouble = async (page: Page, trouble: Trouble, name: string) => {
    const summary = `sent; failed requests: ${trouble.failed.length}, error answers: ${trouble.errorAnswers.length}, console errors: ${trouble.consoleErrors.length}`;
    await page.evaluate(`document.getElementById('log').textContent = ${JSON.stringify(summary)}`);
    await page.screenshot({ path: join(artifacts, `${name}.png`) });
    expect(trouble.failed).toEqual([]);
    expect(trouble.errorAnswers).toEqual([]);
    expect(trouble.consoleErrors).toEqual([]);
    // Nothing but the page's own origin and the API: no CDN, no telemetry.
    expect([...trouble.hosts].sort()).toEqual([new URL(siteOrigin).host, new URL(t.api.baseUrl).host].sort());
  };

  it.each([
    ['batching, as the settings ask', undefined, ['/v1/b']],
    ['one request per call (deliveryStrategy standard)', { 'Segment.io': { deliveryStrategy: { strategy: 'standard' } } }, ['/v1/a', '/v1/g', '/v1/i', '/v1/p', '/v1/s', '/v1/t']],
  ])('analytics-next, %s: every call stored, cross-origin, nothing failed', async (_mode, integrations, paths) => {
    const userId = `segment-${randomUUID()}`;
    const aliasTo = `segment-alias-${randomUUID()}`;
    const { page, trouble, retryStatus, posts } = await runPage('segment', { userId, aliasTo, integrations });
    const expected = ['Browser Track', 'Retried Track', 'alias', 'group', 'identify', 'page_view', 'screen_view'];
    expect(await storedNames([userId, aliasTo], expected, trouble)).toEqual(expected);
    expect(retryStatus).toBe(200);
    const sdkPosts = posts.filter((p) => !p.headers['x-retry-count']);
    expect([...new Set(sdkPosts.map((p) => p.path))].sort()).toEqual(paths);
    for (const { headers } of sdkPosts) {
      expect(headers['content-type']).toBe('text/plain');
      expect(headers.authorization).toBe(`Basic ${Buffer.from(`${writeKey}:`).toString('base64')}`);
    }
    await expectNoTrouble(page, trouble, `analytics-next-${paths.length}`);
    await page.close();
  });

  it('RudderStack v3 (bundled plugins, configUrl at this API): every call stored, cross-origin, nothing failed', async () => {
    const userId = `rudder-${randomUUID()}`;
    const aliasTo = `rudder-alias-${randomUUID()}`;
    const { page, trouble, retryStatus, posts } = await runPage('rudderstack', { userId, aliasTo });
    const expected = ['Browser Track', 'Retried Track', 'alias', 'group', 'identify', 'page_view'];
    expect(await storedNames([userId, aliasTo], expected, trouble)).toEqual(expected);
    expect(retryStatus).toBe(200);
    const sdkPosts = posts.filter((p) => !p.headers['rsa-retry-attempt']);
    expect([...new Set(sdkPosts.map((p) => p.path))].sort()).toEqual(['/v1/alias', '/v1/group', '/v1/identify', '/v1/page', '/v1/track']);
    for (const { headers } of sdkPosts) {
      expect(headers['content-type']).toBe('application/json;charset=UTF-8');
      expect(headers.authorization).toBe(`Basic ${Buffer.from(`${writeKey}:`).toString('base64')}`);
      expect(headers).toHaveProperty('anonymousid');
    }
    await expectNoTrouble(page, trouble, 'rudderstack');
    await page.close();
  });
});
