import { request } from '../support/http';
import { withApiSuite } from '../support/suite';

describe('probes, metrics and the OpenAPI document', () => {
  const t = withApiSuite('ops');

  it('serves /livez and /readyz without a token', async () => {
    expect(await request(`${t.api.baseUrl}/livez`)).toMatchObject({ status: 200, body: { status: 'ok' } });
    expect(await request(`${t.api.baseUrl}/readyz`)).toMatchObject({
      status: 200,
      body: { status: 'ready', checks: { postgres: 'up', redis: 'up' } },
    });
  });

  it('serves Prometheus metrics on the metrics port only, with request durations by route and status', async () => {
    await request(`${t.api.baseUrl}/v1/health`, { token: t.org.token.secret });
    await request(`${t.api.baseUrl}/v1/health`);
    const metrics = await fetch(`${t.api.metricsUrl}/metrics`).then((r) => r.text());
    expect(metrics).toMatch(/foresight_http_request_duration_seconds_count\{method="GET",route="\/v1\/health",status="200"\} [1-9]/);
    expect(metrics).toMatch(/foresight_http_request_duration_seconds_count\{method="GET",route="\/v1\/health",status="401"\} [1-9]/);
    expect((await request(`${t.api.baseUrl}/metrics`, { token: t.org.token.secret })).status).toBe(404);
  });

  it('generates an OpenAPI document covering every route', async () => {
    const document = await request<{ openapi: string; paths: Record<string, Record<string, unknown>> }>(`${t.api.baseUrl}/v1/openapi.json`);
    expect(document.status).toBe(200);
    expect(document.body.openapi).toMatch(/^3\./);
    expect(Object.keys(document.body.paths)).toEqual(
      expect.arrayContaining(['/v1/health', '/v1/tokens', '/v1/tokens/{tokenId}', '/livez', '/readyz']),
    );
    expect(document.body.paths['/v1/tokens']).toHaveProperty('post');
    const docs = await fetch(`${t.api.baseUrl}/v1/docs`);
    expect(docs.status).toBe(200);
    expect(await docs.text()).toContain('<html');
  });

  it('redacts tokens from logs', async () => {
    await request(`${t.api.baseUrl}/v1/nothing`, { token: t.org.token.secret });
    expect(t.api.output()).not.toContain(t.org.token.secret);
  });
});
