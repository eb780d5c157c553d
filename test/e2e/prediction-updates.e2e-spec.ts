import { request } from '../support/http';
import { startApi, startWorker, type RunningProcess } from '../support/processes';
import { TestSuite, type OrganizationWithToken } from '../support/suite';
import { learnablePopulation, sendEvents, settledModel, type TestEvent } from '../support/training';
import { eventually, Receiver } from '../support/webhook-receiver';

const DAY = 86_400_000;

/** Five long looks at pricing a day, over the last `days` days and today. */
function pricingLooks(userId: string, days: number): TestEvent[] {
  const events: TestEvent[] = [];
  for (let day = days; day >= 0; day--) {
    const start = Date.now() - day * DAY - 3600_000;
    for (let k = 0; k < 5; k++) {
      events.push({ event: 'screen_view', userId, timestamp: new Date(start + k * 60_000).toISOString(), properties: { screen: 'pricing', dwellMs: 8000 } });
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
  const prediction = async (userId: string) =>
    (await request<{ predictions: Array<{ label: string; confidence: number }> }>(`${api.baseUrl}/v1/predict?userId=${userId}`, { token: token() })).body.predictions[0];
  const label = async (userId: string) => (await prediction(userId)).label;

  beforeAll(async () => {
    suite = await TestSuite.create('prediction_updates');
    org = await suite.createOrganization('updates', ['--rate-limit', '100000', '--burst', '200000']);
    const env = { ...suite.env, WEBHOOK_ALLOWED_NETWORKS: '127.0.0.0/8', WEBHOOK_RETRY_SCHEDULE: '1s' };
    api = await startApi(env);
    await sendEvents(api.baseUrl, token(), learnablePopulation(400, 100));
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
    // The two users of the population the model is surest will not look at pricing (users outside
    // the population's behavior would sit near 0.5, where a label is a coin toss).
    const population = Array.from({ length: 400 }, (_, i) => `user-${i}`);
    const answers = await Promise.all(population.map(async (userId) => ({ userId, ...(await prediction(userId)) })));
    const [flipper, steady] = answers.filter((a) => a.label === 'unlikely').sort((a, b) => b.confidence - a.confidence).map((a) => a.userId);

    // Several requests within the debounce: the flipper is re-scored once, after all of them.
    const recent = pricingLooks(flipper, 2);
    for (let i = 0; i < recent.length; i += 5) await sendEvents(api.baseUrl, token(), recent.slice(i, i + 5));
    await sendEvents(api.baseUrl, token(), [{ event: 'click', userId: steady, timestamp: new Date().toISOString(), properties: { button: 'browse' } }]);

    const update = await eventually('a prediction.updated delivery', () => (receiver.requests.length > 0 ? receiver.bodies()[0] : undefined));
    expect(update).toMatchObject({ type: 'prediction.updated', data: { userId: flipper, model: 'pricing_view_7d', label: 'likely', previousLabel: 'unlikely' } });
    expect(await label(flipper)).toBe('likely');
    // Both users were re-scored (the debounce is 3 s); only the flip was announced.
    await new Promise((r) => setTimeout(r, 8_000));
    expect(receiver.bodies().map((b) => b.data.userId)).toEqual([flipper]);
    const logged = await suite.sql<{ user_id: string; n: string }>(`SELECT user_id, count(*) AS n FROM predictions WHERE user_id = ANY($1) GROUP BY user_id`, [[flipper, steady]]);
    // flipper: first answer, the worker's re-scoring, and this API process's own fresh answer after the new events;
    // steady: first answer and the worker's re-scoring.
    expect(Object.fromEntries(logged.map((r) => [r.user_id, Number(r.n)]))).toEqual({ [flipper]: 3, [steady]: 2 });
  });
});
