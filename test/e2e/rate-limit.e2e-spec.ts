import { request } from '../support/http';
import { freePort } from '../support/ports';
import { cliJson } from '../support/processes';
import { type RunningProcess, startApi } from '../support/processes';
import { TestSuite } from '../support/suite';

/** Fires `count` requests, `concurrency` at a time, and returns every response in order of completion. */
async function burst(url: string, token: string, count: number, concurrency = 20) {
  const responses: Awaited<ReturnType<typeof request>>[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) {
        next++;
        responses.push(await request(url, { token }));
      }
    }),
  );
  return responses;
}

describe('rate limits', () => {
  let suite: TestSuite;
  let api: RunningProcess;

  beforeAll(async () => {
    suite = await TestSuite.create('ratelimit');
    api = await startApi(suite.env);
  });

  afterAll(async () => {
    await api?.stop();
    await suite?.destroy();
  });

  it('lets 300 to 600 of 700 rapid requests through, then answers 429 with the exact body and headers', async () => {
    const { token } = await suite.createOrganization('Busy');
    const responses = await burst(`${api.baseUrl}/v1/health`, token.secret, 700);
    const ok = responses.filter((r) => r.status === 200);
    const limited = responses.filter((r) => r.status === 429);
    expect(ok.length + limited.length).toBe(700);
    expect(ok.length).toBeGreaterThanOrEqual(300);
    expect(ok.length).toBeLessThanOrEqual(600);

    const rejection = limited[0];
    expect(rejection.body).toEqual({ error: 'rate_limited', retry_after: expect.any(Number) });
    const retryAfter = (rejection.body as { retry_after: number }).retry_after;
    expect(Number.isInteger(retryAfter) && retryAfter >= 1).toBe(true);
    expect(rejection.headers.get('retry-after')).toBe(String(retryAfter));
    for (const response of [ok[0], rejection]) {
      expect(response.headers.get('ratelimit-limit')).toBe('300');
      expect(response.headers.get('ratelimit-remaining')).toMatch(/^\d+$/);
      expect(response.headers.get('ratelimit-reset')).toMatch(/^\d+$/);
    }
  });

  it('applies a per-organization limit set with the CLI', async () => {
    const { organization, token } = await suite.createOrganization('Small');
    await cliJson(suite.env, ['org', 'update', organization.id, '--rate-limit', '60', '--burst', '90']);
    // The API never saw the token before, so no cached verification carries the old limits.
    const responses = await burst(`${api.baseUrl}/v1/health`, token.secret, 100);
    expect(responses[0].headers.get('ratelimit-limit')).toBe('60');
    const ok = responses.filter((r) => r.status === 200).length;
    expect(ok).toBeGreaterThanOrEqual(30);
    expect(ok).toBeLessThanOrEqual(40);
  });

  it('keeps limiting per process, not refusing, when Redis is unreachable', async () => {
    const { token } = await suite.createOrganization('NoRedis');
    const deadRedis = `redis://127.0.0.1:${await freePort()}`;
    const isolated = await startApi({ ...suite.env, REDIS_URL: deadRedis });
    try {
      const ready = await request(`${isolated.baseUrl}/readyz`);
      expect(ready.status).toBe(503);
      expect(ready.body).toMatchObject({ error: 'unavailable', checks: { postgres: 'up', redis: 'down' } });
      const responses = await burst(`${isolated.baseUrl}/v1/health`, token.secret, 700);
      const ok = responses.filter((r) => r.status === 200).length;
      expect(ok).toBeGreaterThanOrEqual(300);
      expect(ok).toBeLessThanOrEqual(600);
      expect(responses.filter((r) => r.status === 429).length).toBe(700 - ok);
    } finally {
      await isolated.stop();
    }
  });
});
