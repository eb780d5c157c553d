import { request } from '../support/http';
import { cliJson, runCli, startWorker, type RunningProcess } from '../support/processes';
import { withApiSuite } from '../support/suite';

const DAY = 86_400_000;

/**
 * A small learnable population: each user has a propensity; likely buyers view pricing and add to
 * cart more often, and check out more often. Sent through POST /v1/events like any client would.
 */
function population(users: number, days: number, seed = 11) {
  let state = seed;
  const random = () => ((state = (Math.imul(state, 1_103_515_245) + 12_345) >>> 0) / 2 ** 32);
  const now = Date.now();
  const events: Array<Record<string, unknown>> = [];
  for (let u = 0; u < users; u++) {
    const propensity = random() < 0.35 ? 0.6 : 0.05;
    for (let day = days; day >= 1; day--) {
      if (random() > 0.35) continue;
      const start = now - day * DAY + random() * 3600_000;
      const n = 2 + Math.floor(random() * 5);
      for (let k = 0; k < n; k++) {
        const pricing = random() < propensity;
        events.push({
          event: pricing ? 'screen_view' : 'click',
          userId: `user-${u}`,
          timestamp: new Date(start + k * 60_000).toISOString(),
          properties: pricing ? { screen: 'pricing', dwellMs: 8000 } : { button: 'browse' },
        });
      }
      if (random() < propensity / 4) events.push({ event: 'checkout', userId: `user-${u}`, timestamp: new Date(start + n * 60_000).toISOString() });
    }
  }
  return events;
}

describe('training runs in the worker', () => {
  const t = withApiSuite('training');
  let worker: RunningProcess;

  beforeAll(async () => {
    const events = population(400, 100);
    for (let i = 0; i < events.length; i += 1000) {
      const response = await request(`${t.api.baseUrl}/v1/events`, { token: t.org.token.secret, method: 'POST', body: events.slice(i, i + 1000) });
      expect(response.status).toBe(200);
    }
    worker = await startWorker(t.suite.env);
  });

  afterAll(async () => {
    await worker?.stop();
  });

  const admin = () => ({ token: t.org.token.secret });
  const create = (body: Record<string, unknown>) => request<{ id: string }>(`${t.api.baseUrl}/v1/models`, { ...admin(), method: 'POST', body });
  const retrain = (modelId: string) =>
    request<{ startedAt: string; status: string }>(`${t.api.baseUrl}/v1/models/retrain`, { ...admin(), method: 'POST', body: { modelId } });
  async function settled(modelId: string): Promise<Record<string, unknown>> {
    for (let i = 0; i < 400; i++) {
      const details = await request<Record<string, unknown>>(`${t.api.baseUrl}/v1/models/${modelId}`, admin());
      if (details.body.status !== 'retraining') return details.body;
      await new Promise((r) => setTimeout(r, 200));
    }
    throw new Error(`model ${modelId} still retraining:\n${worker.output().slice(-3000)}`);
  }

  it.each(['gbdt', 'logistic'])('trains a %s model to active with metrics and feature importance', async (algorithm) => {
    const model = await create({ name: `checkout_${algorithm}`, targetEvent: 'checkout', horizonDays: 7, algorithm });
    const first = await retrain(model.body.id);
    expect(first.body.status).toBe('retraining');
    expect((await retrain(model.body.id)).body.startedAt).toBe(first.body.startedAt);

    const details = await settled(model.body.id);
    expect(details).toMatchObject({ status: 'active', version: 1, lastError: null, algorithm });
    for (const metric of ['accuracy', 'precision', 'recall', 'auc'] as const) {
      expect(details[metric]).toEqual(expect.any(Number));
      expect(details[metric] as number).toBeGreaterThanOrEqual(0);
      expect(details[metric] as number).toBeLessThanOrEqual(1);
    }
    expect(details.auc as number).toBeGreaterThan(0.6); // the pricing signal is learnable
    const importance = details.featureImportance as Array<{ feature: string; weight: number }>;
    expect(importance.reduce((sum, f) => sum + f.weight, 0)).toBeCloseTo(1, 5);
    expect(details.lastRetrained).toEqual(expect.stringMatching(/Z$/));

    const versions = await t.suite.sql<{ version: number; state: string; bytes: number }>(
      `SELECT version, state, length(onnx) AS bytes FROM model_versions WHERE model_id = $1`,
      [model.body.id],
    );
    expect(versions).toEqual([{ version: 1, state: 'serving', bytes: expect.any(Number) }]);
  });

  it('creates and retrains a model from the CLI', async () => {
    const created = await cliJson<{ model: { id: string; status: string } }>(t.suite.env, [
      'model', 'create', '--org', t.org.organization.id, '--name', 'cli_checkout', '--target', 'checkout', '--algorithm', 'logistic',
    ]);
    expect(created.model.status).toBe('untrained');
    const started = await cliJson<{ status: string }>(t.suite.env, ['model', 'retrain', '--org', t.org.organization.id, '--model', created.model.id]);
    expect(started.status).toBe('retraining');
    expect(await settled(created.model.id)).toMatchObject({ status: 'active', version: 1 });
    const listed = await cliJson<{ models: Array<{ id: string; auc: number }> }>(t.suite.env, ['model', 'list', '--org', t.org.organization.id]);
    expect(listed.models.find((m) => m.id === created.model.id)?.auc).toEqual(expect.any(Number));
    const unknownOrg = await runCli(t.suite.env, ['model', 'create', '--org', 'org_nope', '--name', 'x_model', '--target', 'checkout']);
    expect(unknownOrg.code).not.toBe(0);
    expect(unknownOrg.stderr).toContain('organization org_nope not found');
  });

  it('ends failed with a clear lastError when there is too little data', async () => {
    const model = await create({ name: 'rare_event', targetEvent: 'never_happens' });
    await retrain(model.body.id);
    const details = await settled(model.body.id);
    expect(details.status).toBe('failed');
    expect(details.lastError).toMatch(/needs at least 50 positive and 50 negative training examples; found 0 positive/);
  });
});
