import type { Prediction } from '@foresight/predictions';
import { request } from '../support/http';
import { type RunningProcess, startApi, startWorker } from '../support/processes';
import { withApiSuite } from '../support/suite';
import { learnablePopulation, sendEvents, settledModel } from '../support/training';

interface Served {
  model: string;
  modelId: string;
  version: number;
}

/**
 * Two API replicas answer repeats from their own caches. Whatever changes what a model serves
 * (a retrained version, a rollback, a rename, a delete), made through either replica or the worker,
 * shows in the very next answer of both, with no wait.
 */
describe('serving after a model changes, on every API replica', () => {
  const t = withApiSuite('serving_changes');
  let secondApi: RunningProcess;
  let worker: RunningProcess;
  const modelIds: Record<'checkout' | 'pricing', string> = { checkout: '', pricing: '' };
  const USER = 'user-3';

  const call = <T>(api: RunningProcess, path: string, method = 'GET', body?: unknown) =>
    request<T>(`${api.baseUrl}${path}`, { token: t.org.token.secret, method, body });
  /** The user's predictions as each replica answers them, by GET and by batch, sorted by model id. */
  async function servedEverywhere(): Promise<Served[][]> {
    const answers: Served[][] = [];
    for (const api of [t.api, secondApi]) {
      const single = await call<{ predictions: Prediction[] }>(api, `/v1/predict?userId=${USER}`);
      expect(single.status).toBe(200);
      const batch = await call<{ results: Array<{ predictions: Prediction[] }> }>(api, '/v1/predict/batch', 'POST', { userIds: [USER] });
      expect(batch.status).toBe(200);
      for (const predictions of [single.body.predictions, batch.body.results[0].predictions]) {
        answers.push(predictions.map(({ model, modelId, version }) => ({ model, modelId, version })).sort((a, b) => a.modelId.localeCompare(b.modelId)));
      }
    }
    return answers;
  }
  /** Both replicas answer the user twice, so the next answer may come from either one's cache; returns what they serve. */
  async function cachedEverywhere(): Promise<Served[]> {
    const [first] = await servedEverywhere();
    expect(await servedEverywhere()).toEqual(Array(4).fill(first));
    return first;
  }
  async function retrain(modelId: string): Promise<void> {
    await call(t.api, '/v1/models/retrain', 'POST', { modelId });
    expect(await settledModel(t.api.baseUrl, t.org.token.secret, modelId, worker)).toMatchObject({ status: 'active' });
  }
  const versionOf = async (modelId: string) => (await call<{ version: number }>(t.api, `/v1/models/${modelId}`)).body.version;

  beforeAll(async () => {
    await sendEvents(t.api.baseUrl, t.org.token.secret, learnablePopulation(400, 100));
    secondApi = await startApi(t.suite.env);
    worker = await startWorker(t.suite.env);
    for (const [name, targetEvent] of [['checkout', 'checkout'], ['pricing', 'screen_view']] as const) {
      const created = await call<{ id: string }>(t.api, '/v1/models', 'POST', { name, targetEvent, algorithm: 'logistic' });
      modelIds[name] = created.body.id;
      await retrain(created.body.id);
    }
  });

  afterAll(async () => {
    await secondApi?.stop();
    await worker?.stop();
  });

  it('serves a version retrained by the worker at once', async () => {
    const before = await cachedEverywhere();
    expect(before.map((p) => p.version)).toEqual([1, 1]);
    await retrain(modelIds.checkout);
    const serving = await versionOf(modelIds.checkout);
    expect(serving).toBe(2);
    for (const answer of await servedEverywhere()) expect(answer.find((p) => p.modelId === modelIds.checkout)?.version).toBe(serving);
  });

  it('serves a rolled-back version at once', async () => {
    expect((await cachedEverywhere()).find((p) => p.modelId === modelIds.checkout)?.version).toBe(2);
    expect((await call(secondApi, `/v1/models/${modelIds.checkout}/versions/1/promote`, 'POST')).status).toBe(200);
    for (const answer of await servedEverywhere()) expect(answer.find((p) => p.modelId === modelIds.checkout)?.version).toBe(1);
  });

  it('answers with the new name of a renamed model at once', async () => {
    expect((await cachedEverywhere()).find((p) => p.modelId === modelIds.pricing)?.model).toBe('pricing');
    expect((await call(t.api, `/v1/models/${modelIds.pricing}`, 'PATCH', { name: 'pricing_views' })).status).toBe(200);
    for (const answer of await servedEverywhere()) expect(answer.find((p) => p.modelId === modelIds.pricing)?.model).toBe('pricing_views');
  });

  it('never serves a deleted model, and answers no prediction once no model is left', async () => {
    expect((await cachedEverywhere()).map((p) => p.modelId)).toEqual([modelIds.checkout, modelIds.pricing].sort());
    expect((await call(t.api, `/v1/models/${modelIds.checkout}`, 'DELETE')).status).toBe(200);
    for (const answer of await servedEverywhere()) expect(answer.map((p) => p.modelId)).toEqual([modelIds.pricing]);

    await cachedEverywhere();
    expect((await call(secondApi, `/v1/models/${modelIds.pricing}`, 'DELETE')).status).toBe(200);
    expect(await servedEverywhere()).toEqual(Array(4).fill([]));
  });
});
