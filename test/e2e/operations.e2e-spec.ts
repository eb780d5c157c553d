import { request } from '../support/http';
import { startApi, type RunningProcess } from '../support/processes';
import { TestSuite, type OrganizationWithToken } from '../support/suite';

describe('probes, metrics and the OpenAPI document', () => {
  let suite: TestSuite;
  let api: RunningProcess;
  let org: OrganizationWithToken;

  beforeAll(async () => {
    suite = await TestSuite.create('ops');
    org = await suite.createOrganization('Ops');
    api = await startApi(suite.env);
  });

  afterAll(async () => {
    await api?.stop();
    await suite?.destroy();
  });

  it('serves /livez and /readyz without a token', async () => {
    expect(await request(`${api.baseUrl}/livez`)).toMatchObject({ status: 200, body: { status: 'ok' } });
    expect(await request(`${api.baseUrl}/readyz`)).toMatchObject({
      status: 200,
      body: { status: 'ready', checks: { postgres: 'up', redis: 'up' } },
    });
  });

  it('serves Prometheus metrics on the metrics port only, with request durations by route and status', async () => {
    await request(`${api.baseUrl}/v1/health`, { token: org.token.secret });
    await request(`${api.baseUrl}/v1/health`);
    const metrics = await fetch(`${api.metricsUrl}/metrics`).then((r) => r.text());
    expect(metrics).toMatch(/foresight_http_request_duration_seconds_count\{method="GET",route="\/v1\/health",status="200"\} [1-9]/);
    expect(metrics).toMatch(/foresight_http_request_duration_seconds_count\{method="GET",route="\/v1\/health",status="401"\} [1-9]/);
    expect((await request(`${api.baseUrl}/metrics`, { token: org.token.secret })).status).toBe(404);
  });

  it('generates an OpenAPI document covering every route', async () => {
    const document = await request<{ openapi: string; paths: Record<string, Record<string, unknown>> }>(`${api.baseUrl}/v1/openapi.json`);
    expect(document.status).toBe(200);
    expect(document.body.openapi).toMatch(/^3\./);
    expect(Object.keys(document.body.paths)).toEqual(
      expect.arrayContaining(['/v1/health', '/v1/tokens', '/v1/tokens/{tokenId}', '/livez', '/readyz']),
    );
    expect(document.body.paths['/v1/tokens']).toHaveProperty('post');
    const docs = await fetch(`${api.baseUrl}/v1/docs`);
    expect(docs.status).toBe(200);
    expect(await docs.text()).toContain('<html');
  });

  it('redacts tokens from logs', async () => {
    await request(`${api.baseUrl}/v1/nothing`, { token: org.token.secret });
    expect(api.output()).not.toContain(org.token.secret);
  });
});
