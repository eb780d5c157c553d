import { request } from '../support/http';
import { withApiSuite } from '../support/suite';

describe('models API (registry and retrain requests)', () => {
  const t = withApiSuite('models');
  const admin = () => ({ token: t.org.token.secret });

  it('creates a model with the contract defaults and lists it as untrained', async () => {
    const created = await request<Record<string, unknown>>(`${t.api.baseUrl}/v1/models`, {
      ...admin(),
      method: 'POST',
      body: { name: 'checkout_7d', targetEvent: 'checkout' },
    });
    expect(created.status).toBe(200);
    expect(created.body).toMatchObject({
      id: expect.stringMatching(/^mdl_[a-z0-9]{16}$/),
      name: 'checkout_7d',
      targetEvent: 'checkout',
      horizonDays: 7,
      algorithm: 'gbdt',
      labels: ['unlikely', 'likely'],
      status: 'untrained',
      accuracy: null,
      lastRetrained: null,
      featureImportance: [],
    });
    const list = await request<Array<Record<string, unknown>>>(`${t.api.baseUrl}/v1/models`, admin());
    expect(list.body).toEqual([
      {
        id: created.body.id, name: 'checkout_7d', kind: 'event', targetEvent: 'checkout', status: 'untrained', version: null, accuracy: null, lastRetrained: null, auc: null, schedule: null,
        // Additive: two weeks of health, nothing monitored yet.
        health: Array.from({ length: 14 }, (_, k) => ({ day: new Date(Date.now() - (13 - k) * 86_400_000).toISOString().slice(0, 10), health: 'no_data' })),
      },
    ]);
  });

  it('refuses bad definitions and duplicate names with the field named', async () => {
    const post = (body: unknown) => request<{ details: Array<{ path: string }> }>(`${t.api.baseUrl}/v1/models`, { ...admin(), method: 'POST', body });
    const bad = await post({ name: 'Bad Name', targetEvent: 'checkout', horizonDays: 0, algorithm: 'forest', schedule: 'every day' });
    expect(bad.status).toBe(400);
    expect(bad.body.details.map((d) => d.path).sort()).toEqual(['algorithm', 'horizonDays', 'name', 'schedule']);
    await post({ name: 'upgrade_30d', targetEvent: 'upgrade', horizonDays: 30, schedule: '0 3 * * *' });
    const duplicate = await post({ name: 'upgrade_30d', targetEvent: 'upgrade' });
    expect(duplicate.status).toBe(400);
    expect(duplicate.body.details.map((d) => d.path)).toEqual(['name']);
  });

  it('starts one retrain run and answers the same startedAt while it is in flight', async () => {
    const created = await request<{ id: string }>(`${t.api.baseUrl}/v1/models`, { ...admin(), method: 'POST', body: { name: 'churn_model', targetEvent: 'churn' } });
    const retrain = () => request<{ modelId: string; status: string; startedAt: string }>(`${t.api.baseUrl}/v1/models/retrain`, { ...admin(), method: 'POST', body: { modelId: created.body.id } });
    const first = await retrain();
    expect(first.status).toBe(200);
    expect(first.body).toEqual({ modelId: created.body.id, status: 'retraining', startedAt: expect.stringMatching(/Z$/) });
    const second = await retrain();
    expect(second.body.startedAt).toBe(first.body.startedAt);
    const details = await request<{ status: string }>(`${t.api.baseUrl}/v1/models/${created.body.id}`, admin());
    expect(details.body.status).toBe('retraining');
  });

  it("keeps other organizations' models out of reach (404) and enforces scopes", async () => {
    const mine = await request<{ id: string }>(`${t.api.baseUrl}/v1/models`, { ...admin(), method: 'POST', body: { name: 'mine_only', targetEvent: 'checkout' } });
    const other = await t.suite.createOrganization('Other');
    const asOther = { token: other.token.secret };
    expect((await request(`${t.api.baseUrl}/v1/models/${mine.body.id}`, asOther)).status).toBe(404);
    const retrain = await request(`${t.api.baseUrl}/v1/models/retrain`, { ...asOther, method: 'POST', body: { modelId: mine.body.id } });
    expect(retrain).toMatchObject({ status: 404, body: { error: 'not_found' } });
    expect((await request<unknown[]>(`${t.api.baseUrl}/v1/models`, asOther)).body).toEqual([]);

    const ingest = await request<{ token: string }>(`${t.api.baseUrl}/v1/tokens`, { ...admin(), method: 'POST', body: { environment: 'prod', scopes: ['ingest'] } });
    const denied = await request(`${t.api.baseUrl}/v1/models`, { token: ingest.body.token, method: 'POST', body: { name: 'nope_model', targetEvent: 'x' } });
    expect(denied.status).toBe(403);
    expect((await request(`${t.api.baseUrl}/v1/models`, { token: ingest.body.token })).status).toBe(403);
  });
});
