import { request } from '../support/http';
import { startApi, startWorker, type RunningProcess } from '../support/processes';
import { TestSuite, type OrganizationWithToken } from '../support/suite';
import { learnablePopulation, sendEvents, settledModel, type TestEvent } from '../support/training';
import { eventually, Receiver } from '../support/webhook-receiver';

const DAY = 86_400_000;

/** A user who browses every day without ever looking at pricing; `pricing` adds recent long looks at it. */
function behavior(userId: string, kind: 'browsing' | 'pricing', days: number): TestEvent[] {
  const events: TestEvent[] = [];
  for (let day = days; day >= 0; day--) {
    const start = Date.now() - day * DAY - 3600_000;
    for (let k = 0; k < 5; k++) {
      events.push(
        kind === 'pricing'
          ? { event: 'screen_view', userId, timestamp: new Date(start + k * 60_000).toISOString(), properties: { screen: 'pricing', dwellMs: 8000 } }
          : { event: 'click', userId, timestamp: new Date(start + k * 60_000).toISOString(), properties: { button: 'browse' } },
      );
    }
  }
  return events;
}

describe('prediction.updated webhooks', () => {
  let suite: TestSuite;
  let org: OrganizationWithToken;
  let api: RunningProcess;
  let worker: RunningProcess;
  let receiver: Receiver;

  const token = () => org.token.secret;
  const label = async (userId: string) =>
    (await request<{ predictions: Array<{ label: string }> }>(`${api.baseUrl}/v1/predict?userId=${userId}`, { token: token() })).body.predictions[0].label;

  beforeAll(async () => {
    suite = await TestSuite.create('prediction_updates');
    org = await suite.createOrganization('updates', ['--rate-limit', '100000', '--burst', '200000']);
    const env = { ...suite.env, WEBHOOK_ALLOWED_NETWORKS: '127.0.0.0/8', WEBHOOK_RETRY_SCHEDULE: '1s' };
    api = await startApi(env);
    await sendEvents(api.baseUrl, token(), [...learnablePopulation(400, 100), ...behavior('flipper', 'browsing', 20), ...behavior('steady', 'browsing', 20)]);
    worker = await startWorker(env);
    // Whether the user looks at pricing within a week: browsers rarely do, people who just did, will again.
    const model = await request<{ id: string }>(`${api.baseUrl}/v1/models`, {
      token: token(), method: 'POST', body: { name: 'pricing_view_7d', targetEvent: 'screen_view', horizonDays: 7 },
    });
    await request(`${api.baseUrl}/v1/models/retrain`, { token: token(), method: 'POST', body: { modelId: model.body.id } });
    expect(await settledModel(api.baseUrl, token(), model.body.id, worker)).toMatchObject({ status: 'active' });
    receiver = await Receiver.start(() => 200);
    await request(`${api.baseUrl}/v1/webhooks`, { token: token(), method: 'POST', body: { url: receiver.url, events: ['prediction.updated'] } });
  });

  afterAll(async () => {
    await Promise.all([api?.stop(), worker?.stop(), receiver?.close()]);
    await suite?.destroy();
  });

  it('announces exactly one prediction.updated when new events flip a label, and none when they do not', async () => {
    expect(await label('flipper')).toBe('unlikely');
    expect(await label('steady')).toBe('unlikely');

    // Several requests within the debounce: the flipper is re-scored once, after all of them.
    const recent = behavior('flipper', 'pricing', 2);
    for (let i = 0; i < recent.length; i += 5) await sendEvents(api.baseUrl, token(), recent.slice(i, i + 5));
    await sendEvents(api.baseUrl, token(), behavior('steady', 'browsing', 1));

    const update = await eventually('a prediction.updated delivery', () => (receiver.requests.length > 0 ? receiver.bodies()[0] : undefined));
    expect(update).toMatchObject({ type: 'prediction.updated', data: { userId: 'flipper', model: 'pricing_view_7d', label: 'likely', previousLabel: 'unlikely' } });
    expect(await label('flipper')).toBe('likely');
    // Both users were re-scored (the debounce is 3 s); only the flip was announced.
    await new Promise((r) => setTimeout(r, 8_000));
    expect(receiver.bodies().map((b) => b.data.userId)).toEqual(['flipper']);
    const logged = await suite.sql<{ user_id: string; n: string }>(`SELECT user_id, count(*) AS n FROM predictions GROUP BY user_id ORDER BY user_id`);
    // flipper: first answer, the worker's re-scoring, and this API process's own fresh answer after the new events.
    expect(logged.map((r) => [r.user_id, Number(r.n)])).toEqual([['flipper', 3], ['steady', 2]]);
  });
});
