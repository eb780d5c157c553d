import { eventually } from '../support/eventually';
import { request } from '../support/http';
import { startApi } from '../support/processes';
import { withApiSuite } from '../support/suite';
import { TcpProxy } from '../support/tcp-proxy';

describe('error responses', () => {
  const t = withApiSuite('errors');

  const post = (body: string, contentType = 'application/json') =>
    request(`${t.api.baseUrl}/v1/tokens`, { token: t.org.token.secret, method: 'POST', body, headers: { 'content-type': contentType } });

  it('answers malformed JSON with 400 invalid_request', async () => {
    const response = await post('{"environment":');
    expect(response.status).toBe(400);
    expect(response.body).toEqual({ error: 'invalid_request', message: expect.any(String) });
  });

  it('names each invalid field in details', async () => {
    const response = await post(JSON.stringify({ environment: 'qa', scopes: ['read', 'root'] }));
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ error: 'invalid_request', details: expect.arrayContaining([expect.objectContaining({ path: 'environment' })]) });
    expect((response.body as { details: Array<{ path: string }> }).details.map((d) => d.path)).toContain('scopes.1');
  });

  it('answers a body over 1 MiB with 413 payload_too_large', async () => {
    const response = await post(JSON.stringify({ padding: 'x'.repeat(1024 * 1024) }));
    expect(response.status).toBe(413);
    expect(response.body).toEqual({ error: 'payload_too_large', message: expect.any(String) });
  });

  it('answers a body that is not JSON with 415 unsupported_media_type', async () => {
    for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'application/xml']) {
      const response = await post('environment=dev', type);
      expect(response.status).toBe(415);
      expect(response.body).toEqual({ error: 'unsupported_media_type', message: expect.any(String) });
    }
  });

  it('answers an unknown route with 404 not_found', async () => {
    for (const path of ['/v1/nothing-here', '/nothing']) {
      const response = await request(`${t.api.baseUrl}${path}`, { token: t.org.token.secret });
      expect(response.status).toBe(404);
      expect(response.body).toEqual({ error: 'not_found', message: expect.stringContaining(path) });
    }
  });

  it('answers 503 unavailable with Retry-After when Postgres is unreachable, and recovers', async () => {
    const url = new URL(t.suite.env.DATABASE_URL);
    const proxy = await TcpProxy.start({ host: url.hostname, port: Number(url.port || 5432) });
    url.host = `127.0.0.1:${proxy.port}`;
    const cutOff = await startApi({ ...t.suite.env, DATABASE_URL: url.toString() });
    try {
      expect((await request(`${cutOff.baseUrl}/v1/health`, { token: t.org.token.secret })).status).toBe(200);
      proxy.cut();
      // The token's cached verification (500 ms) answers without Postgres until it expires.
      const response = await eventually('503 without Postgres', async () => {
        const answer = await request(`${cutOff.baseUrl}/v1/tokens`, { token: t.org.token.secret });
        expect(answer.status).toBe(503);
        return answer;
      }, 10_000);
      expect(response.body).toEqual({ error: 'unavailable', message: expect.any(String) });
      expect(response.headers.get('retry-after')).toMatch(/^\d+$/);
      expect(JSON.stringify(response.body)).not.toMatch(/ECONN|at .*\.js|SELECT/);
      expect((await request(`${cutOff.baseUrl}/readyz`)).status).toBe(503);

      proxy.restore();
      await eventually('200 once Postgres is back', async () => ((await request(`${cutOff.baseUrl}/v1/tokens`, { token: t.org.token.secret })).status === 200 ? true : undefined), 10_000);
    } finally {
      await cutOff.stop();
      await proxy.close();
    }
  });
});
