import { request } from '../support/http';
import { cliJson } from '../support/processes';
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

  it('sends a person at the root address to the dashboard', async () => {
    const root = await fetch(`${t.api.baseUrl}/`, { redirect: 'manual' });
    expect(root.status).toBe(302);
    expect(root.headers.get('location')).toBe('/dashboard/');
  });

  it("audits the CLI's state-changing actions, with the CLI as the actor, in `audit list` and GET /v1/audit", async () => {
    const org = t.org.organization.id;
    const { model } = await cliJson<{ model: { id: string } }>(t.suite.env, ['model', 'create', '--org', org, '--name', 'cli_audited', '--target', 'checkout']);
    await cliJson(t.suite.env, ['model', 'retrain', '--org', org, '--model', model.id]);
    const { token } = await cliJson<{ token: { id: string } }>(t.suite.env, ['token', 'create', '--org', org, '--env', 'dev', '--scopes', 'ingest']);
    await cliJson(t.suite.env, ['token', 'revoke', token.id]);

    const expected = [
      ['token.revoke', token.id, 'cli'],
      ['token.create', token.id, 'cli'],
      ['model.retrain', model.id, 'cli'],
      ['model.create', model.id, 'cli'],
      ['token.create', t.org.token.id, 'cli'],
      ['organization.create', org, 'cli'],
    ];
    type Entry = { action: string; target: string | null; actor: string; actorTokenId: string | null; actorPerson: unknown };
    const listed = await cliJson<{ entries: Entry[] }>(t.suite.env, ['audit', 'list', '--org', org]);
    expect(listed.entries.map((e) => [e.action, e.target, e.actor])).toEqual(expected);
    expect(listed.entries.every((e) => e.actorTokenId === null && e.actorPerson === null)).toBe(true);
    const answered = await request<{ entries: Entry[] }>(`${t.api.baseUrl}/v1/audit`, { token: t.org.token.secret });
    expect(answered.body.entries.map((e) => [e.action, e.target, e.actor])).toEqual(expected);
  }, 300_000); // five CLI processes, each starting the application context

  it('redacts tokens from logs', async () => {
    await request(`${t.api.baseUrl}/v1/nothing`, { token: t.org.token.secret });
    expect(t.api.output()).not.toContain(t.org.token.secret);
  });
});
