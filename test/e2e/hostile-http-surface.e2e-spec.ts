import { launchChromium } from '../support/chromium';
import { eventually } from '../support/eventually';
import { loggedFaults, shapeViolations } from '../support/hostile/contract';
import { type HeldConnection, holdConnection, rawRequest, type RawResponse } from '../support/hostile/raw-http';
import { request } from '../support/http';
import { type RunningProcess, startApi } from '../support/processes';
import { type OrganizationWithToken, TestSuite } from '../support/suite';

/**
 * Issue 40, the HTTP surface beside the API: the static files of the dashboard and the docs, slow
 * clients, and the pages that share the dashboard's origin. Every API process here logs at info, so
 * the access log shows request ids, and a 5xx or an error line is a fault.
 */
describe('hostile clients at the HTTP surface', () => {
  let suite: TestSuite;
  let org: OrganizationWithToken;

  beforeAll(async () => {
    suite = await TestSuite.create('httpsurface');
    org = await suite.createOrganization('HTTP surface');
  });

  afterAll(async () => {
    await suite?.destroy();
  });

  let processes = 0;

  /** An API process for one test, with extra configuration; no error-level line may be logged meanwhile. */
  async function withApi(env: Record<string, string>, work: (api: RunningProcess) => Promise<void>): Promise<void> {
    const api = await startApi({ ...suite.env, REDIS_PREFIX: `${suite.env.REDIS_PREFIX}api${++processes}:`, LOG_LEVEL: 'info', ...env });
    try {
      await work(api);
      expect(loggedFaults(api.output())).toEqual([]);
    } finally {
      await api.stop();
    }
  }

  const raw = async (api: RunningProcess, target: string, headers: Array<[string, string]> = []): Promise<RawResponse> => {
    const outcome = await rawRequest(api.baseUrl, { method: 'GET', target: Buffer.from(target, 'latin1'), headers });
    const { violations } = shapeViolations(outcome, false);
    expect([target, headers, violations]).toEqual([target, headers, []]);
    if (outcome.kind !== 'response') throw new Error(`no answer to ${target}`);
    return outcome.response;
  };
  const errorOf = (response: RawResponse) => (JSON.parse(response.body.toString('utf8')) as { error: string }).error;

  describe('finding 3: the static files of the dashboard and the docs', () => {
    it('answers paths outside their folders 404 not_found, revealing nothing', async () => {
      await withApi({}, async (api) => {
        for (const target of [
          '/dashboard/../package.json',
          '/dashboard/%2e%2e/package.json',
          '/dashboard/%2e%2e/%2e%2e/package.json',
          '/dashboard/..%2fpackage.json',
          '/dashboard/%5c../package.json',
          '/dashboard/..%5c..%5cpackage.json',
          '/dashboard/%00',
          '/dashboard/index.html%00',
          '/v1/docs/../../package.json',
          '/v1/docs/%2e%2e/%2e%2e/package.json',
        ]) {
          const response = await raw(api, target);
          expect([target, response.status, errorOf(response)]).toEqual([target, 404, 'not_found']);
          expect(response.body.toString()).not.toContain('foresight');
        }
      });
    });

    it('answers unsatisfiable ranges 416 with Content-Range, failed preconditions 412, and bad or multiple ranges without a fault', async () => {
      await withApi({}, async (api) => {
        const page = await raw(api, '/dashboard/');
        const script = /<script[^>]* src="([^"]+)"/.exec(page.body.toString())?.[1] ?? 'no-script.js';
        const files = ['/dashboard/', new URL(script, `${api.baseUrl}/dashboard/`).pathname, '/v1/docs/swagger-ui.css'];
        for (const file of files) {
          const whole = await raw(api, file);
          expect([file, whole.status]).toEqual([file, 200]);
          const size = whole.body.length;

          const beyond = await raw(api, file, [['range', `bytes=${size + 10}-`]]);
          expect([file, beyond.status, errorOf(beyond), beyond.headers['content-range']]).toEqual([file, 416, 'range_not_satisfiable', `bytes */${size}`]);
          for (const precondition of [['if-match', '"not-this-file"'], ['if-unmodified-since', 'Thu, 01 Jan 1970 00:00:00 GMT']] as Array<[string, string]>) {
            const refused = await raw(api, file, [precondition]);
            expect([file, precondition, refused.status, errorOf(refused)]).toEqual([file, precondition, 412, 'precondition_failed']);
          }
          // RFC 9110 lets a server ignore or refuse these; either way in the contract's shape (raw() checks it).
          for (const range of ['bytes=abc', 'bytes=5-1', 'bytes=0-1,5-6', 'bytes=0-10,11-20,0-5', 'lines=1-2']) await raw(api, file, [['range', range]]);
          expect((await raw(api, file, [['range', 'bytes=0-9']])).status).toBe(206);
          const etag = whole.headers.etag;
          expect((await raw(api, file, [['if-none-match', etag]])).status).toBe(304);
          expect((await raw(api, file, [['if-match', etag]])).status).toBe(200);
          expect((await raw(api, file, [['if-modified-since', new Date(Date.now() + 86_400_000).toUTCString()]])).status).toBe(304);
        }
        // The SDK bundle is served by its own route: conditional requests work there too.
        const bundle = await raw(api, '/sdk/foresight.js');
        expect((await raw(api, '/sdk/foresight.js', [['if-none-match', bundle.headers.etag]])).status).toBe(304);
        for (const range of ['bytes=999999-', 'bytes=abc']) expect((await raw(api, '/sdk/foresight.js', [['range', range]])).status).toBe(200);
      });
    });
  });

  describe('finding 4: slow clients', () => {
    const timeouts = { HTTP_HEADERS_TIMEOUT: '2s', HTTP_REQUEST_TIMEOUT: '3s', HTTP_KEEP_ALIVE_TIMEOUT: '2s' };
    /** Longer than any of the timeouts above takes to act on a machine shared with other suites. */
    const closedWithin = async (connection: HeldConnection): Promise<boolean> => {
      let timer: NodeJS.Timeout | undefined;
      const stillOpen = new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), 30_000)));
      try {
        return await Promise.race([connection.closed.then(() => true), stillOpen]);
      } finally {
        clearTimeout(timer);
      }
    };
    const expectTimedOut = (connection: HeldConnection) => {
      const answer = connection.answer();
      expect({ status: answer?.status, body: answer && JSON.parse(answer.body.toString()) }).toEqual({
        status: 408,
        body: { error: 'request_timeout', message: expect.any(String) },
      });
    };

    it('answers 408 and closes a request whose body stalls, authenticated or not', async () => {
      await withApi(timeouts, async (api) => {
        const logMark = api.output().length;
        const bearer = `authorization: Bearer ${org.token.secret}\r\n`;
        // The first 4 bytes of 1,000, then nothing: plain JSON, a gzip stream's header, text an SDK sends without a token.
        for (const [path, headers, start] of [
          ['/v1/events', `${bearer}content-type: application/json\r\n`, Buffer.from('{"ev')],
          ['/v1/events', `${bearer}content-type: application/json\r\ncontent-encoding: gzip\r\n`, Buffer.from([0x1f, 0x8b, 0x08, 0x00])],
          ['/v1/b', 'content-type: text/plain\r\n', Buffer.from('{"ba')],
          ['/v1/models', `${bearer}content-type: application/json\r\n`, Buffer.from('{"na')],
        ] as const) {
          const connection = await holdConnection(api.baseUrl);
          connection.socket.write(Buffer.concat([Buffer.from(`POST ${path} HTTP/1.1\r\nhost: x\r\n${headers}content-length: 1000\r\n\r\n`), start]));
          expect([path, headers, await closedWithin(connection)]).toEqual([path, headers, true]);
          expectTimedOut(connection);
        }
        // The process still serves, and nothing was half-stored.
        expect((await request(`${api.baseUrl}/v1/models`, { token: org.token.secret })).status).toBe(200);
        // A body cut off is the client's doing: not logged as a fault, nor as a backing service lost.
        expect(api.output().slice(logMark)).not.toMatch(/"level":[4-9]\d/);
      });
    });

    it('closes connections that trickle their headers, send nothing at all, or sit idle after an answer', async () => {
      await withApi(timeouts, async (api) => {
        const trickling = await holdConnection(api.baseUrl);
        trickling.socket.write('GET /v1/health HTTP/1.1\r\nhost: x\r\n');
        const drip = setInterval(() => trickling.socket.write('x-drip: 1\r\n'), 200);
        try {
          expect(await closedWithin(trickling)).toBe(true);
        } finally {
          clearInterval(drip);
        }
        expectTimedOut(trickling);

        const silent = await holdConnection(api.baseUrl);
        expect(await closedWithin(silent)).toBe(true);

        const kept = await holdConnection(api.baseUrl);
        kept.socket.write('GET /livez HTTP/1.1\r\nhost: x\r\n\r\n');
        await eventually('the answer on the kept-alive connection', () => kept.answer());
        expect(kept.answer()?.headers.connection).toBe('keep-alive');
        expect(await closedWithin(kept)).toBe(true);
      });
    });

    it('refuses connections beyond HTTP_MAX_CONNECTIONS and serves again once they close', async () => {
      await withApi({ HTTP_MAX_CONNECTIONS: '5', HTTP_HEADERS_TIMEOUT: '60s', HTTP_REQUEST_TIMEOUT: '60s' }, async (api) => {
        const connections: HeldConnection[] = [];
        try {
          for (let i = 0; i < 10; i++) connections.push(await holdConnection(api.baseUrl));
          // The test's own earlier requests may hold a kept-alive connection of the five.
          const refused = await eventually('connections past the limit to be closed', () => {
            const closed = connections.filter((c) => c.isClosed());
            return closed.length >= 5 ? closed : undefined;
          });
          expect(refused.map((c) => c.answer())).toEqual(refused.map(() => undefined));
          expect(connections.filter((c) => !c.isClosed()).length).toBeLessThanOrEqual(5);
        } finally {
          for (const connection of connections) connection.socket.destroy();
        }
        await eventually('the API to serve again', async () => ((await fetch(`${api.baseUrl}/livez`)).ok ? true : undefined));
      });
    });
  });

  describe('finding 8: pages beside the dashboard, request ids, SDK settings', () => {
    it('serves the docs and the SDK example page with a strict CSP, not framed, not sniffed, no referrer', async () => {
      await withApi({}, async (api) => {
        for (const path of ['/v1/docs', '/v1/docs/', '/v1/docs/swagger-ui-init.js', '/sdk/example', '/sdk/example/pricing']) {
          const response = await fetch(`${api.baseUrl}${path}`);
          expect([path, response.status]).toEqual([path, 200]);
          const csp = response.headers.get('content-security-policy') ?? '';
          const scriptSources = /script-src ([^;]*)/.exec(csp)?.[1] ?? '';
          expect([path, csp]).toEqual([path, expect.stringContaining("default-src 'none'")]);
          expect([path, scriptSources]).toEqual([path, expect.stringContaining("'self'")]);
          expect([path, scriptSources]).not.toEqual([path, expect.stringMatching(/unsafe|\*|https?:/)]);
          expect([path, csp]).toEqual([path, expect.stringContaining("frame-ancestors 'none'")]);
          expect([path, response.headers.get('x-frame-options'), response.headers.get('x-content-type-options'), response.headers.get('referrer-policy')]).toEqual([
            path,
            'DENY',
            'nosniff',
            'no-referrer',
          ]);
        }
        // The policy lets the pages work: the docs render the document, the example page runs its script.
        const { browser, close } = await launchChromium();
        try {
          const page = await browser.newPage();
          const problems: string[] = [];
          page.on('console', (message) => {
            if (message.type() === 'error') problems.push(message.text());
          });
          page.on('pageerror', (error) => problems.push(error.message));
          await page.goto(`${api.baseUrl}/v1/docs`);
          await page.getByRole('heading', { name: /Foresight API/ }).waitFor();
          await page.goto(`${api.baseUrl}/sdk/example`);
          await page.locator('#missing-token:not([hidden])').waitFor();
          expect(problems).toEqual([]);
        } finally {
          await close();
        }
      });
    });

    it('logs a client X-Request-Id only when it is short and plain, else a fresh id', async () => {
      await withApi({}, async (api) => {
        const loggedIdOf = async (id: string) => {
          const mark = api.output().length;
          // A route the start-up's /livez polls do not share: their log lines may still be arriving.
          await fetch(`${api.baseUrl}/v1/health`, { headers: { 'x-request-id': id } });
          const line = await eventually('the access log line', () =>
            api
              .output()
              .slice(mark)
              .split('\n')
              .find((l) => l.includes('"route":"/v1/health"')),
          );
          return (JSON.parse(line) as { reqId: string }).reqId;
        };
        const plain = 'trace-42.b:7_x';
        expect(await loggedIdOf(plain)).toBe(plain);
        for (const hostile of ['a'.repeat(129), 'id with spaces', '<script>alert(1)</script>', '{"level":60}', 'naïve-é']) {
          const logged = await loggedIdOf(hostile);
          expect([hostile, logged]).toEqual([hostile, expect.stringMatching(/^[0-9a-f-]{36}$/)]);
        }
      });
    });

    it("lets only the SDK's own cache keep its settings, for a while", async () => {
      await withApi({}, async (api) => {
        const segment = await fetch(`${api.baseUrl}/v1/projects/${org.token.secret}/settings`);
        const rudder = await fetch(`${api.baseUrl}/sourceConfig`, { headers: { authorization: `Basic ${Buffer.from(`${org.token.secret}:`).toString('base64')}` } });
        for (const response of [segment, rudder]) {
          expect(response.status).toBe(200);
          expect(response.headers.get('cache-control')).toMatch(/^private, max-age=\d+$/);
        }
      });
    });
  });
});
