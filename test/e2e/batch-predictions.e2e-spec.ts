import type { Prediction } from '@foresight/predictions';
import { eventually } from '../support/eventually';
import { request } from '../support/http';
import { predictionLogWritten } from '../support/prediction-log';
import { cliJson, type RunningProcess, startApi, startWorker } from '../support/processes';
import { type OrganizationWithToken, TestSuite } from '../support/suite';
import { learnablePopulation, sendEvents, settledModel } from '../support/training';

type BatchEntry = { userId: string; predictions: Prediction[] } | { userId: string; error: 'not_found' };
interface SingleAnswer {
  userId: string;
  predictions: Prediction[];
}

const USERS = 300;
const LOG_MARKERS = ['log-marker-1', 'log-marker-2', 'log-marker-3'];
/** Enough requests for every comparison below without meeting the limiter (its own test uses the defaults). */
const GENEROUS_LIMITS = ['--rate-limit', '100000', '--burst', '200000'];

/** The ids asked for: every known user in a shuffled order, with unknown ids among them. */
function askedIds(): string[] {
  const ids = Array.from({ length: USERS }, (_, i) => `user-${(i * 37) % USERS}`);
  ids.splice(5, 0, 'nobody-1');
  ids.splice(60, 0, 'nobody-2');
  ids.push('user-999');
  return ids;
}

describe('batch predictions', () => {
  let suite: TestSuite;
  let plain: OrganizationWithToken;
  let hashed: OrganizationWithToken;
  let hostile: OrganizationWithToken;
  /** Two API processes: each answers from its own cache, so the second computes single answers afresh. */
  let api: RunningProcess;
  let secondApi: RunningProcess;
  let worker: RunningProcess;

  const batch = (token: string, body: unknown, on = api) =>
    request<{ results: BatchEntry[] } & Record<string, unknown>>(`${on.baseUrl}/v1/predict/batch`, { token, method: 'POST', body });
  const single = (token: string, userId: string, on = api) =>
    request<SingleAnswer>(`${on.baseUrl}/v1/predict?userId=${encodeURIComponent(userId)}`, { token });

  async function trainModels(org: OrganizationWithToken, algorithms: string[]): Promise<void> {
    for (const algorithm of algorithms) {
      const created = await request<{ id: string }>(`${api.baseUrl}/v1/models`, {
        token: org.token.secret,
        method: 'POST',
        body: { name: `checkout_${algorithm}`, targetEvent: 'checkout', algorithm },
      });
      await request(`${api.baseUrl}/v1/models/retrain`, { token: org.token.secret, method: 'POST', body: { modelId: created.body.id } });
      expect(await settledModel(api.baseUrl, org.token.secret, created.body.id, worker)).toMatchObject({ status: 'active' });
    }
    // Both API processes serve every model.
    for (const process of [api, secondApi]) {
      await eventually('every model to serve on each API process', async () =>
        (await single(org.token.secret, 'user-0', process)).body.predictions.length === algorithms.length ? true : undefined,
      10_000);
    }
  }

  /** Every entry of the batch against GET /v1/predict: the same process (its cache, so exactly equal) and a fresh computation elsewhere. */
  async function expectSameAsSingle(org: OrganizationWithToken, modelCount: number, ids = askedIds()): Promise<void> {
    const answer = await batch(org.token.secret, { userIds: ids });
    expect(answer.status).toBe(200);
    expect(answer.body.results.map((r) => r.userId)).toEqual(ids);
    // All at once: the other process's first answers share ONNX Runtime runs (CoalescedRuns), each still its own user's.
    const others = await Promise.all(ids.map((id) => single(org.token.secret, id, secondApi)));
    for (const [i, entry] of answer.body.results.entries()) {
      const here = await single(org.token.secret, entry.userId);
      const elsewhere = others[i];
      if ('error' in entry) {
        expect(entry).toEqual({ userId: entry.userId, error: 'not_found' });
        expect([here.status, elsewhere.status]).toEqual([404, 404]);
        continue;
      }
      expect(entry.predictions).toHaveLength(modelCount);
      expect(here.body).toEqual(entry);
      expect(elsewhere.body.userId).toBe(entry.userId);
      // Computed at another instant: days-since features moved by a few seconds, nothing else.
      const byModel = new Map(elsewhere.body.predictions.map((p) => [p.modelId, p]));
      for (const prediction of entry.predictions) {
        const fresh = byModel.get(prediction.modelId) as Prediction;
        expect({ ...fresh, confidence: 0 }).toEqual({ ...prediction, confidence: 0 });
        expect(fresh.confidence).toBeCloseTo(prediction.confidence, 4);
      }
    }
  }

  beforeAll(async () => {
    suite = await TestSuite.create('batchpredict');
    plain = await suite.createOrganization('plain', GENEROUS_LIMITS);
    hashed = await suite.createOrganization('hashed', ['--hash-user-ids', 'true', ...GENEROUS_LIMITS]);
    hostile = await suite.createOrganization('hostile');
    api = await startApi(suite.env);
    secondApi = await startApi(suite.env);
    // Ending half a day ago: no event nears a 1-, 7- or 30-day window edge while the suite runs, so answers computed seconds apart agree.
    const population = learnablePopulation(USERS, 100, { now: Date.now() - 43_200_000 });
    await sendEvents(api.baseUrl, plain.token.secret, population);
    await sendEvents(api.baseUrl, hashed.token.secret, population);
    await sendEvents(api.baseUrl, hostile.token.secret, [{ event: 'click', userId: 'intruder', timestamp: new Date().toISOString() }]);
    // Users no test asks about, to answer waits for the prediction log; their events now, so the worker's re-scoring of them is long done then.
    await sendEvents(api.baseUrl, plain.token.secret, LOG_MARKERS.map((userId) => ({ event: 'click', userId, timestamp: new Date(Date.now() - 86_400_000).toISOString() })));
    worker = await startWorker(suite.env);
  });

  afterAll(async () => {
    await worker?.stop();
    await secondApi?.stop();
    await api?.stop();
    await suite?.destroy();
  });

  it('rejects a body that is not 1 to 1,000 distinct user ids, naming the field', async () => {
    const token = plain.token.secret;
    const cases: Array<[unknown, string]> = [
      [{ userIds: [] }, 'userIds'],
      [{ userIds: Array.from({ length: 1001 }, (_, i) => `u-${i}`) }, 'userIds'],
      [{}, 'userIds'],
      [{ userIds: 'user-1' }, 'userIds'],
      [{ userIds: ['user-1', 7] }, 'userIds.1'],
      [{ userIds: ['user-1', ''] }, 'userIds.1'],
      [{ userIds: ['user-1', 'x'.repeat(256)] }, 'userIds.1'],
      [{ userIds: ['user-1', 'user-2', 'user-1'] }, 'userIds.2'],
      [['user-1'], '(body)'],
    ];
    for (const [body, path] of cases) {
      const answer = await batch(token, body);
      expect(answer.status).toBe(400);
      expect(answer.body).toMatchObject({ error: 'invalid_request', message: expect.stringContaining(path) });
      expect(answer.body.details).toEqual(expect.arrayContaining([expect.objectContaining({ path })]));
    }
    expect((await batch(token, { userIds: ['user-1', 'user-2', 'user-1'] })).body.message).toContain('repeats userIds.0');
    expect((await batch(token, { userIds: Array.from({ length: 1000 }, (_, i) => `u-${i}`) })).status).toBe(200);
  });

  it('needs the read scope', async () => {
    const { token } = await cliJson<{ token: { secret: string } }>(suite.env, ['token', 'create', '--org', plain.organization.id, '--env', 'dev', '--scopes', 'ingest']);
    const answer = await batch(token.secret, { userIds: ['user-1'] });
    expect(answer.status).toBe(403);
    expect(answer.body).toMatchObject({ error: 'insufficient_scope' });
  });

  it('counts one request of 1,000 users once against the rate limit', async () => {
    const token = hostile.token.secret;
    const before = await request(`${api.baseUrl}/v1/health`, { token });
    const answer = await batch(token, { userIds: Array.from({ length: 1000 }, (_, i) => `someone-${i}`) });
    expect(answer.status).toBe(200);
    const remaining = (response: typeof before) => Number(response.headers.get('ratelimit-remaining'));
    expect(remaining(before) - remaining(answer)).toBeLessThanOrEqual(1);
  });

  it('answers every user exactly as GET /v1/predict does, in the order asked, before any model and with models', async () => {
    const beforeModels = await batch(plain.token.secret, { userIds: ['user-1', 'nobody-1'] });
    expect(beforeModels.body).toEqual({
      results: [
        { userId: 'user-1', predictions: [] },
        { userId: 'nobody-1', error: 'not_found' },
      ],
    });
    await trainModels(plain, ['gbdt', 'logistic']);
    await expectSameAsSingle(plain, 2);
  });

  it('logs each fresh batch answer once, like single predictions, and not again when GET /v1/predict repeats it', async () => {
    const markers = [...LOG_MARKERS];
    const logged = async () => {
      await predictionLogWritten(suite, api.baseUrl, plain, markers.shift() ?? 'no marker left');
      const [row] = await suite.sql<{ n: string }>(`SELECT count(*) AS n FROM predictions WHERE organization_id = $1 AND user_id = 'user-3' AND scoring_run IS NULL`, [plain.organization.id]);
      return Number(row.n);
    };
    const start = await logged();
    await sendEvents(api.baseUrl, plain.token.secret, [{ event: 'click', userId: 'user-3', timestamp: new Date().toISOString() }]);
    await batch(plain.token.secret, { userIds: ['user-3'] });
    expect(await logged()).toBe(start + 2);
    await single(plain.token.secret, 'user-3');
    await batch(plain.token.secret, { userIds: ['user-3'] });
    expect(await logged()).toBe(start + 2);
  });

  it("counts linked anonymous events for their own user only, the batch's users read together as when read alone", async () => {
    const timestamp = new Date().toISOString();
    const anonymous = Array.from({ length: 30 }, () => ({ event: 'screen_view', anonymousId: 'anon-20', timestamp, properties: { screen: 'pricing', dwellMs: 8000 } }));
    await sendEvents(api.baseUrl, plain.token.secret, [
      ...anonymous,
      { event: 'identify', userId: 'user-20', anonymousId: 'anon-20', timestamp },
      // New events for the users read after user-20 in the batch: neither process answers them from its cache.
      ...['user-21', 'user-22'].map((userId) => ({ event: 'click', userId, timestamp })),
    ]);
    await expectSameAsSingle(plain, 2, ['user-20', 'user-21', 'user-22']);
  });

  it('answers a hashUserIds organization with the ids as sent, exactly as GET /v1/predict does', async () => {
    await trainModels(hashed, ['logistic']);
    await expectSameAsSingle(hashed, 1);
    const [row] = await suite.sql<{ n: string }>(`SELECT count(*) AS n FROM predictions WHERE organization_id = $1 AND user_id LIKE 'user-%'`, [hashed.organization.id]);
    expect(Number(row.n)).toBe(0);
  });

  it("never finds another organization's users, and a hostile organization's floods leave the others' answers whole", async () => {
    const victims = Array.from({ length: USERS }, (_, i) => `user-${i}`);
    const probe = await batch(hostile.token.secret, { userIds: [...victims, 'intruder'] });
    expect(probe.body.results.slice(0, USERS)).toEqual(victims.map((userId) => ({ userId, error: 'not_found' })));
    expect(probe.body.results[USERS]).toEqual({ userId: 'intruder', predictions: [] });

    const expected = await batch(plain.token.secret, { userIds: victims });
    const flood = Array.from({ length: 20 }, (_, k) =>
      batch(hostile.token.secret, { userIds: Array.from({ length: 1000 }, (_, i) => (i < USERS ? victims[i] : `flood-${k}-${i}-${'z'.repeat(200)}`)) }),
    );
    const during = await Promise.all([batch(plain.token.secret, { userIds: victims }), ...victims.slice(0, 10).map((id) => single(plain.token.secret, id))]);
    expect(during[0]).toMatchObject({ status: 200, body: expected.body });
    during.slice(1).forEach((answer, i) => expect(answer.body).toEqual(expected.body.results[i]));
    for (const answer of await Promise.all(flood)) {
      expect([200, 429]).toContain(answer.status);
      if (answer.status === 200) expect(answer.body.results.every((r) => 'error' in r)).toBe(true);
    }
  });
});
