import { eventually } from '../support/eventually';
import { request } from '../support/http';
import { type RunningProcess, startApi, startWorker } from '../support/processes';
import { queuedWorkDone } from '../support/queues';
import { type OrganizationWithToken, TestSuite } from '../support/suite';
import { learnablePopulation, promotionRunsDone, sendEvents, settledModel, type TestEvent } from '../support/training';
import { Receiver } from '../support/webhook-receiver';

const DAY = 86_400_000;

/** Five long looks at pricing a day, over the last `days` days and today, by a user or an anonymous visitor. */
function pricingLooks(who: { userId: string } | { anonymousId: string }, days: number): TestEvent[] {
  const events: TestEvent[] = [];
  for (let day = days; day >= 0; day--) {
    const start = Date.now() - day * DAY - 3600_000;
    for (let k = 0; k < 5; k++) {
      events.push({ event: 'screen_view', ...who, timestamp: new Date(start + k * 60_000).toISOString(), properties: { screen: 'pricing', dwellMs: 8000 } });
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
  const population = Array.from({ length: 400 }, (_, i) => `user-${i}`);
  /** The users the model is surest will not look at pricing, surest first (users outside the population's behavior would sit near 0.5, where a label is a coin toss). */
  const surestUnlikely = async () => {
    const answers = await Promise.all(population.map(async (userId) => ({ userId, ...(await prediction(userId)) })));
    return answers.filter((a) => a.label === 'unlikely').sort((a, b) => b.confidence - a.confidence).map((a) => a.userId);
  };
  const updatesOf = (userId: string) => receiver.bodies().filter((b) => b.data.userId === userId);
  const loggedPredictions = async (userId: string) => Number((await suite.sql<{ n: string }>(`SELECT count(*) AS n FROM predictions WHERE user_id = $1 AND scoring_run IS NULL`, [userId]))[0].n);
  let announced: string[] = [];

  beforeAll(async () => {
    suite = await TestSuite.create('prediction_updates');
    org = await suite.createOrganization('updates', ['--rate-limit', '100000', '--burst', '200000']);
    const env = { ...suite.env, WEBHOOK_ALLOWED_NETWORKS: '127.0.0.0/8', WEBHOOK_RETRY_SCHEDULE: '1s' };
    api = await startApi(env);
    // Intent shifts (every 14 days on average), so the last days' looks at pricing are what predicts the
    // coming week. With a fixed intent, 30-day totals name each user's type and a browser's sudden
    // burst of looks is a mix training never saw: whether it reads as "likely" was a coin toss.
    await sendEvents(api.baseUrl, token(), learnablePopulation(400, 100, { intentShiftDays: 14 }));
    worker = await startWorker(env);
    // Whether the user looks at pricing within a week: browsers rarely do, people who just did, will again.
    const model = await request<{ id: string }>(`${api.baseUrl}/v1/models`, {
      token: token(), method: 'POST', body: { name: 'pricing_view_7d', targetEvent: 'screen_view', horizonDays: 7 },
    });
    await request(`${api.baseUrl}/v1/models/retrain`, { token: token(), method: 'POST', body: { modelId: model.body.id } });
    expect(await settledModel(api.baseUrl, token(), model.body.id, worker)).toMatchObject({ status: 'active' });
    await promotionRunsDone(suite, org.organization.id);
    receiver = await Receiver.start(() => 200);
    await request(`${api.baseUrl}/v1/webhooks`, { token: token(), method: 'POST', body: { url: receiver.url, events: ['prediction.updated'] } });
  });

  afterAll(async () => {
    await Promise.all([api?.stop(), worker?.stop(), receiver?.close()]);
    await suite?.destroy();
  });

  it('announces exactly one prediction.updated when new events flip a label, and none when they do not', async () => {
    const [flipper, steady] = await surestUnlikely();
    announced = [flipper, steady];

    // Several requests within the debounce: the flipper is re-scored once, after all of them.
    const recent = pricingLooks({ userId: flipper }, 2);
    for (let i = 0; i < recent.length; i += 5) await sendEvents(api.baseUrl, token(), recent.slice(i, i + 5));
    await sendEvents(api.baseUrl, token(), [{ event: 'click', userId: steady, timestamp: new Date().toISOString(), properties: { button: 'browse' } }]);

    const update = await eventually('a prediction.updated delivery', () => (receiver.requests.length > 0 ? receiver.bodies()[0] : undefined));
    expect(update).toMatchObject({ type: 'prediction.updated', data: { userId: flipper, model: 'pricing_view_7d', label: 'likely', previousLabel: 'unlikely' } });
    expect(await label(flipper)).toBe('likely');
    // flipper: first answer, the worker's re-scoring, and this API process's own fresh answer after the new events;
    // steady: first answer and the worker's re-scoring (the debounce is 3 s).
    const expectLogged = async () => {
      const logged = await suite.sql<{ user_id: string; n: string }>(`SELECT user_id, count(*) AS n FROM predictions WHERE user_id = ANY($1) AND scoring_run IS NULL GROUP BY user_id`, [[flipper, steady]]);
      expect(Object.fromEntries(logged.map((r) => [r.user_id, Number(r.n)]))).toEqual({ [flipper]: 3, [steady]: 2 });
      return true;
    };
    await eventually('both users re-scored and logged', expectLogged, 30_000);
    // Once the re-scorings' announcements and deliveries have run, only the flip was announced.
    await queuedWorkDone(suite.env, ['user-activity', 'domain-events', 'webhooks'], (data) => data.organizationId === org.organization.id || 'webhookId' in data);
    expect(receiver.bodies().map((b) => b.data.userId)).toEqual([flipper]);
    await expectLogged();
  });

  it('re-scores a user whose linked anonymous visitor acts, and both users of a re-link', async () => {
    const [linked, other] = (await surestUnlikely()).filter((userId) => !announced.includes(userId));
    const anonymousId = `visitor-of-${linked}`;
    const before = await loggedPredictions(linked);
    await sendEvents(api.baseUrl, token(), [{ event: 'identify', userId: linked, anonymousId, timestamp: new Date().toISOString() }]);
    // The identify names the user: re-scored once (logged), no label change.
    await eventually('the re-scoring after identify', async () => ((await loggedPredictions(linked)) > before ? true : undefined));

    // Events naming no user, only the linked visitor: the user's history changed all the same.
    await sendEvents(api.baseUrl, token(), pricingLooks({ anonymousId }, 2));
    const flipped = await eventually('prediction.updated after anonymous events', () => updatesOf(linked)[0]);
    expect(flipped).toMatchObject({ data: { userId: linked, label: 'likely', previousLabel: 'unlikely' } });

    // The visitor turns out to be another user: the first one lost that history and is re-scored too.
    await sendEvents(api.baseUrl, token(), [{ event: 'identify', userId: other, anonymousId, timestamp: new Date().toISOString() }]);
    const flippedBack = await eventually('prediction.updated after the re-link', () => updatesOf(linked)[1]);
    expect(flippedBack).toMatchObject({ data: { userId: linked, label: 'unlikely', previousLabel: 'likely' } });
  });
});
