import { request } from '../support/http';
import { cliJson, runCli, type RunningProcess, startWorker } from '../support/processes';
import { withApiSuite } from '../support/suite';
import { learnablePopulation, sendEvents, settledModel } from '../support/training';

describe('training runs in the worker', () => {
  const t = withApiSuite('training');
  let worker: RunningProcess;

  beforeAll(async () => {
    await sendEvents(t.api.baseUrl, t.org.token.secret, learnablePopulation(400, 100));
    worker = await startWorker(t.suite.env);
  });

  afterAll(async () => {
    await worker?.stop();
  });

  const admin = () => ({ token: t.org.token.secret });
  const create = (body: Record<string, unknown>) => request<{ id: string }>(`${t.api.baseUrl}/v1/models`, { ...admin(), method: 'POST', body });
  const retrain = (modelId: string) =>
    request<{ startedAt: string; status: string }>(`${t.api.baseUrl}/v1/models/retrain`, { ...admin(), method: 'POST', body: { modelId } });
  const settled = (modelId: string) => settledModel(t.api.baseUrl, t.org.token.secret, modelId, worker);

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
    expect(details.lastError).toBe('needs at least 50 users who did "never_happens" within 7 days after a training cutoff; found 0');
  });
});
