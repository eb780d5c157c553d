import { eventually } from '../support/eventually';
import { request } from '../support/http';
import { childrenOf, isRunning, type RunningProcess, startWorker } from '../support/processes';
import { withApiSuite } from '../support/suite';
import { learnablePopulation, sendEvents, settledModel } from '../support/training';

/** Training that nobody triggers by hand, and training whose worker dies mid-run. */
describe('training runs survive schedules and crashes', () => {
  const t = withApiSuite('training_recovery');
  const workers: RunningProcess[] = [];

  beforeAll(async () => {
    await sendEvents(t.api.baseUrl, t.org.token.secret, learnablePopulation(400, 100));
  });

  afterAll(async () => {
    await Promise.all(workers.map((w) => w.stop()));
  });

  async function worker(): Promise<RunningProcess> {
    const started = await startWorker(t.suite.env);
    workers.push(started);
    return started;
  }
  const admin = () => ({ token: t.org.token.secret });
  const create = (body: Record<string, unknown>) => request<{ id: string; status: string }>(`${t.api.baseUrl}/v1/models`, { ...admin(), method: 'POST', body });
  const details = (modelId: string) => request<Record<string, unknown>>(`${t.api.baseUrl}/v1/models/${modelId}`, admin());

  it('a run whose worker is killed while its training process runs is picked up by another worker and completes', async () => {
    const first = await worker();
    const model = await create({ name: 'crash_checkout', targetEvent: 'checkout' });
    await request(`${t.api.baseUrl}/v1/models/retrain`, { ...admin(), method: 'POST', body: { modelId: model.body.id } });
    // The fit runs in a process of the worker's own: kill the worker while it runs.
    const fit = await eventually('the first worker to start its training process', () => childrenOf(first.child.pid as number).at(0));
    await first.kill();
    // The orphaned fit stops rather than spending a core on a run nobody waits for.
    await eventually('the killed worker\'s training process to stop', () => (isRunning(fit) ? undefined : true), 10_000);
    // Killed mid-run: nothing was stored, the model is still retraining.
    expect((await details(model.body.id)).body).toMatchObject({ status: 'retraining', version: null });

    const second = await worker();
    const settled = await settledModel(t.api.baseUrl, t.org.token.secret, model.body.id, second);
    expect(settled).toMatchObject({ status: 'active', version: 1, lastError: null });
    expect(second.output()).toContain('training run started');
  });

  it('a model with a cron schedule is retrained by its job scheduler', async () => {
    await worker();
    // Every minute, the most often a schedule may fire: the run starts at the next minute boundary.
    const model = await create({ name: 'scheduled_checkout', targetEvent: 'checkout', schedule: '* * * * *' });
    expect(model.body.status).toBe('untrained');
    const settled = await settledModel(t.api.baseUrl, t.org.token.secret, model.body.id, workers[workers.length - 1], 150_000);
    expect(settled).toMatchObject({ status: 'active', schedule: '* * * * *' });
    expect(settled.version).toBeGreaterThanOrEqual(1);
  }, 200_000);
});
