import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eventually } from '../support/eventually';
import { request } from '../support/http';
import { cliJson, type RunningProcess, startApi } from '../support/processes';
import { REDIS_URL } from '../support/services';
import { deleteRedisKeys, type OrganizationWithToken } from '../support/suite';
import { learnablePopulation, sendEvents, settledModel } from '../support/training';

interface ScoringRunView {
  id: string;
  state: string;
  scored: number;
  total: number | null;
}

/** The zero-configuration path of the README: no DATABASE_URL, PGlite in DATA_DIR, worker inline. */
describe('embedded mode (PGlite)', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'foresight-embedded-'));
  const env = { DATA_DIR: dataDir, REDIS_URL, REDIS_PREFIX: `e2e:embedded:${randomBytes(4).toString('hex')}:`, SCORING_CHUNK_USERS: '20' };
  let api: RunningProcess | undefined;
  let created: OrganizationWithToken | undefined;

  afterAll(async () => {
    await api?.stop();
    rmSync(dataDir, { recursive: true, force: true });
    await deleteRedisKeys(env.REDIS_PREFIX);
  });

  it('creates an organization with the CLI, serves it, and lets the CLI reach the running database', async () => {
    created = await cliJson<OrganizationWithToken>(env, ['org', 'create', '--name', 'Embedded']);
    api = await startApi(env);
    const health = await request(`${api.baseUrl}/v1/health`, { token: created.token.secret });
    expect(health).toMatchObject({ status: 200, body: { status: 'ok' } });

    // While the API owns the PGlite directory, the CLI goes through its socket.
    const second = await cliJson<{ token: { secret: string } }>(env, ['token', 'create', '--org', created.organization.id, '--env', 'dev', '--scopes', 'read']);
    expect((await request(`${api.baseUrl}/v1/health`, { token: second.token.secret })).status).toBe(200);
    const listed = await cliJson<{ tokens: unknown[] }>(env, ['token', 'list', '--org', created.organization.id]);
    expect(listed.tokens).toHaveLength(2);

    // PGlite takes events by INSERT … unnest (no COPY): every column, the numeric properties' jsonb included.
    const event = { event: 'add_to_cart', userId: 'embedded-user', properties: { items: 3, sku: 'sku-1', dwellMs: 900 } };
    const stored = await request(`${api.baseUrl}/v1/events`, { token: created.token.secret, method: 'POST', body: [event] });
    expect(stored).toMatchObject({ status: 200, body: { accepted: 1, duplicates: 0 } });
    const exported = await request<{ events: Array<{ event: string; properties: unknown }> }>(`${api.baseUrl}/v1/users/export?userId=embedded-user`, { token: created.token.secret });
    expect(exported.body.events).toEqual([expect.objectContaining({ event: 'add_to_cart', properties: event.properties })]);
  });

  // The README's quick start: the promotion's bulk scoring writes the prediction log by INSERT here
  // (PGlite's socket loses protocol sync on COPY FROM STDIN, and the whole service hung after a first
  // training), and with chunks of 20 users it commits chunks after reading the window (PGlite runs one
  // transaction at a time: chunks committed beside the open cursor hung the run).
  it('trains a model, bulk-scores every active user after the promotion and on request, then serves single and batch predictions and exports them', async () => {
    if (!api || !created) throw new Error('the first test did not start the API');
    const { baseUrl } = api;
    const token = created.token.secret;
    await sendEvents(baseUrl, token, learnablePopulation(150, 60, { intentShiftDays: 14 }));
    const model = await request<{ id: string }>(`${baseUrl}/v1/models`, {
      token, method: 'POST', body: { name: 'pricing_view_7d', targetEvent: 'screen_view', horizonDays: 7, algorithm: 'logistic' },
    });
    await request(`${baseUrl}/v1/models/retrain`, { token, method: 'POST', body: { modelId: model.body.id } });
    expect(await settledModel(baseUrl, token, model.body.id, api)).toMatchObject({ status: 'active' });

    const audience = await request<{ id: string }>(`${baseUrl}/v1/audiences`, { token, method: 'POST', body: { name: 'top decile', modelId: model.body.id, label: 'likely', rule: { topPercent: 10 } } });
    expect(audience.status).toBe(200);
    const started = await request<ScoringRunView>(`${baseUrl}/v1/models/${model.body.id}/score`, { token, method: 'POST' });
    expect(started.status).toBe(202);
    const run = await eventually('the manual scoring run', async () => {
      const polled = await request<ScoringRunView>(`${baseUrl}/v1/models/${model.body.id}/score/${started.body.id}`, { token });
      expect(polled.body.state).not.toBe('failed');
      return polled.body.state === 'completed' ? polled.body : undefined;
    }, 120_000);
    expect(run.total).toBeGreaterThan(100);
    expect(run.scored).toBe(run.total);
    // The run recomputes the audience in the inline worker: the top tenth of the scored users.
    const members = async (at: string) => {
      const view = await eventually('the audience computed by the run', async () => {
        const polled = await request<{ size: number | null }>(`${at}/v1/audiences/${audience.body.id}`, { token });
        return polled.body.size === Math.ceil(run.scored / 10) ? polled.body : undefined;
      });
      const listed = await request<Array<{ userId: string; confidence: number }>>(`${at}/v1/audiences/${audience.body.id}/members?limit=1000`, { token });
      expect(listed.body).toHaveLength(view.size as number);
      return listed.body;
    };
    const before = await members(baseUrl);

    expect(await request(`${baseUrl}/v1/predict?userId=user-1`, { token })).toMatchObject({ status: 200, body: { predictions: [expect.objectContaining({ modelId: model.body.id })] } });
    // The batch route reads all histories in one read-only transaction with JIT off (SET LOCAL jit): PGlite takes it too.
    const batch = await request<{ results: Array<{ userId: string }> }>(`${baseUrl}/v1/predict/batch`, { token, method: 'POST', body: { userIds: ['user-2', 'nobody', 'user-3'] } });
    expect(batch).toMatchObject({
      status: 200,
      body: { results: [{ userId: 'user-2', predictions: [expect.objectContaining({ modelId: model.body.id })] }, { userId: 'nobody', error: 'not_found' }, { userId: 'user-3' }] },
    });
    const exported = await request<Array<{ userId: string }>>(`${baseUrl}/v1/export/predictions?since=${new Date().toISOString().slice(0, 10)}&limit=100000`, { token });
    expect(exported.status).toBe(200);
    expect(new Set(exported.body.map((p) => p.userId)).size).toBeGreaterThanOrEqual(run.scored);

    // Restarted on the same data directory: the audience and its members are still there.
    await api.stop();
    api = await startApi(env);
    expect(await members(api.baseUrl)).toEqual(before);
  }, 300_000);
});
