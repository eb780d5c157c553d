import { type ExplainableModel, explainableModelOf } from '@foresight/models';
import type { Prediction } from '@foresight/predictions';
import { eventually } from '../support/eventually';
import { request } from '../support/http';
import { predictionLogWritten } from '../support/prediction-log';
import { type RunningProcess, startApi, startWorker } from '../support/processes';
import { type OrganizationWithToken, withApiSuite } from '../support/suite';
import { learnablePopulation, promotionRunsDone, sendEvents, settledModel, type TestEvent } from '../support/training';

interface Exported {
  id: string;
  userId: string;
  model: string;
  confidence: number;
  timestamp: string;
}

const MODELS: Array<{ name: string; targetEvent: string; algorithm: string; labels?: [string, string] }> = [
  { name: 'checkout_gbdt', targetEvent: 'checkout', algorithm: 'gbdt', labels: ['no_buy', 'buy'] },
  { name: 'checkout_logistic', targetEvent: 'checkout', algorithm: 'logistic' },
];
const labelsOf = (model: string) => MODELS.find((m) => m.name === model)?.labels ?? ['unlikely', 'likely'];

/** Recent behavior of a likely buyer (long looks at pricing, checkouts) or of a browser who only clicks around. */
function recentBehavior(userId: string, buyer: boolean): TestEvent[] {
  const events: TestEvent[] = [];
  for (let day = 20; day >= 1; day--) {
    const start = Date.now() - day * 86_400_000;
    for (let k = 0; k < 5; k++) {
      events.push(
        buyer
          ? { event: 'screen_view', userId, timestamp: new Date(start + k * 60_000).toISOString(), properties: { screen: 'pricing', dwellMs: 8000 } }
          : { event: 'click', userId, timestamp: new Date(start + k * 60_000).toISOString(), properties: { button: 'browse' } },
      );
    }
    if (buyer && day % 3 === 0) events.push({ event: 'checkout', userId, timestamp: new Date(start + 10 * 60_000).toISOString() });
  }
  return events;
}

describe('predictions and their export', () => {
  const t = withApiSuite('predictions');
  let other: OrganizationWithToken;
  let worker: RunningProcess;
  const modelIds: string[] = [];

  const get = <T>(path: string, token = t.org.token.secret, headers: Record<string, string> = {}) =>
    request<T>(`${t.api.baseUrl}${path}`, { token, headers });
  const predict = (query: string, token?: string) => get<{ userId: string; sessionId?: string; predictions: Prediction[] }>(`/v1/predict?${query}`, token);
  const positiveProbability = (p: Prediction) => (p.label === labelsOf(p.model)[1] ? p.confidence : 1 - p.confidence);
  /** Users of the population no test asks about: each answers one wait for the prediction log, fresh. */
  let markers = 300;
  const logWritten = () => predictionLogWritten(t.suite, t.api.baseUrl, t.org, `user-${markers++}`);
  async function loggedRows(userId: string): Promise<number> {
    await logWritten();
    const [row] = await t.suite.sql<{ n: string }>(`SELECT count(*) AS n FROM predictions WHERE user_id = $1 AND scoring_run IS NULL`, [userId]);
    return Number(row.n);
  }

  beforeAll(async () => {
    other = await t.suite.createOrganization('other');
    await sendEvents(t.api.baseUrl, t.org.token.secret, [
      ...learnablePopulation(400, 100),
      ...recentBehavior('buyer-1', true),
      ...recentBehavior('browser-1', false),
      { event: 'click', userId: 'session-user', sessionId: 'sess-42', timestamp: new Date(Date.now() - 60_000).toISOString() },
    ]);
    await sendEvents(t.api.baseUrl, other.token.secret, [
      { event: 'click', userId: 'outsider', timestamp: new Date().toISOString() },
      { event: 'rival_secret_event', userId: 'outsider', timestamp: new Date().toISOString(), properties: { screen: '/rival-secret', dwellMs: 5000 } },
    ]);
    worker = await startWorker(t.suite.env);
  });

  afterAll(async () => {
    await worker?.stop();
  });

  it('answers 404 for an unknown user and 400 without a user or session, before any model serves', async () => {
    expect((await predict('userId=user-0')).body).toEqual({ userId: 'user-0', predictions: [] });
    expect((await predict('userId=nobody')).status).toBe(404);
    const missing = await predict('');
    expect(missing.status).toBe(400);
    expect(missing.body).toMatchObject({ error: 'invalid_request' });
  });

  it('serves every model within 5 seconds of training, with labels from its label pair and confidence in [0.5, 1]', async () => {
    for (const model of MODELS) {
      const created = await request<{ id: string }>(`${t.api.baseUrl}/v1/models`, { token: t.org.token.secret, method: 'POST', body: model });
      modelIds.push(created.body.id);
      await request(`${t.api.baseUrl}/v1/models/retrain`, { token: t.org.token.secret, method: 'POST', body: { modelId: created.body.id } });
    }
    for (const id of modelIds) expect(await settledModel(t.api.baseUrl, t.org.token.secret, id, worker)).toMatchObject({ status: 'active' });
    await promotionRunsDone(t.suite, t.org.organization.id);

    const answer = await eventually('every model to serve user-1', async () => {
      const served = await predict('userId=user-1');
      return served.body.predictions.length === MODELS.length ? served : undefined;
    }, 5_000);
    expect(answer.status).toBe(200);
    expect(answer.body.predictions.map((p) => p.model).sort()).toEqual(MODELS.map((m) => m.name).sort());
    for (const prediction of answer.body.predictions) {
      expect(labelsOf(prediction.model)).toContain(prediction.label);
      expect(prediction.confidence).toBeGreaterThanOrEqual(0.5);
      expect(prediction.confidence).toBeLessThanOrEqual(1);
      expect(prediction).toMatchObject({ modelId: expect.stringMatching(/^mdl_/), version: 1 });
    }
  });

  it('gives the user who behaves like a buyer a higher positive probability than one who only browses', async () => {
    const buyer = await predict('userId=buyer-1');
    const browser = await predict('userId=browser-1');
    for (const model of MODELS) {
      const of = (answer: typeof buyer) => positiveProbability(answer.body.predictions.find((p) => p.model === model.name) as Prediction);
      expect(of(buyer)).toBeGreaterThan(of(browser));
    }
  });

  it('finds the user of a session', async () => {
    const answer = await predict('sessionId=sess-42');
    expect(answer.body).toMatchObject({ userId: 'session-user', sessionId: 'sess-42', predictions: expect.any(Array) });
    expect(answer.body.predictions).toHaveLength(MODELS.length);
    expect((await predict('sessionId=no-such-session')).status).toBe(404);
  });

  describe('explain=true', () => {
    type Explained = Prediction & { explanation?: { base: number; contributions: Array<{ feature: string; label: string; value: number | null; contribution: number }> } | null };
    const explain = (query: string, token?: string) => get<{ userId: string; predictions: Explained[] }>(`/v1/predict?${query}`, token);
    /** Each serving version's model as its stored ONNX graph computes it, read back in this process. */
    async function servingModels(): Promise<Map<string, ExplainableModel>> {
      const rows = await t.suite.sql<{ model_id: string; onnx: Buffer }>(
        `SELECT v.model_id, v.onnx FROM model_versions v JOIN models m ON m.serving_version_id = v.id WHERE m.organization_id = $1`,
        [t.org.organization.id],
      );
      return new Map(rows.map((row) => [row.model_id, explainableModelOf(row.onnx) as ExplainableModel]));
    }

    it('splits each raw score exactly into base and at most 11 labelled contributions, for gbdt and logistic alike', async () => {
      const models = await servingModels();
      for (const user of ['buyer-1', 'browser-1', 'user-3']) {
        const answer = await explain(`userId=${user}&explain=true`);
        expect(answer.status).toBe(200);
        expect(answer.body.predictions).toHaveLength(MODELS.length);
        for (const prediction of answer.body.predictions) {
          const { explanation } = prediction;
          if (!explanation) throw new Error(`no explanation for ${prediction.model}`);
          expect(explanation.contributions.length).toBeGreaterThan(0);
          expect(explanation.contributions.length).toBeLessThanOrEqual(11);
          for (const { feature, label, value } of explanation.contributions) {
            expect(label.length).toBeGreaterThan(0);
            expect(value === null).toBe(feature === 'other');
          }
          // Calibrated as the graph calibrates it, base + contributions is the served probability: the
          // sum is the raw score of the very features the model read (float32 inference, hence 1e-5).
          const { calibration } = models.get(prediction.modelId) as ExplainableModel;
          const rawScore = explanation.contributions.reduce((sum, c) => sum + c.contribution, explanation.base);
          const served = 1 / (1 + Math.exp(-(calibration.a * rawScore + calibration.b)));
          expect(Math.abs(served - positiveProbability(prediction))).toBeLessThan(1e-5);
        }
      }
    });

    it('answers without explanations unless asked, from the cache alike, and refuses explain=maybe naming the field', async () => {
      const explained = await explain('userId=user-5&explain=true');
      expect(await loggedRows('user-5')).toBe(MODELS.length);
      // Repeats come from the cache: explained when asked, never otherwise, and not logged again.
      expect((await explain('userId=user-5&explain=true')).body).toEqual(explained.body);
      const plain = await explain('userId=user-5');
      const withoutExplanations = explained.body.predictions.map(({ explanation: _explanation, ...prediction }) => prediction);
      expect(plain.body.predictions).toEqual(withoutExplanations);
      expect((await explain('userId=user-5&explain=false')).body.predictions).toEqual(withoutExplanations);
      expect(await loggedRows('user-5')).toBe(MODELS.length);

      const refused = await explain('userId=user-5&explain=maybe');
      expect(refused.status).toBe(400);
      expect(refused.body).toMatchObject({ error: 'invalid_request', message: expect.stringContaining('explain') });
    });

    it("never names another organization's data, nor explains its users", async () => {
      const answer = await explain('userId=buyer-1&explain=true');
      expect(JSON.stringify(answer.body)).not.toMatch(/rival|outsider/u);
      expect((await explain('userId=user-1&explain=true', other.token.secret)).status).toBe(404);
    });
  });

  it("never shows another organization's users", async () => {
    expect((await predict('userId=user-1', other.token.secret)).status).toBe(404);
    expect((await predict('userId=outsider', other.token.secret)).body).toEqual({ userId: 'outsider', predictions: [] });
    expect((await predict('userId=outsider')).status).toBe(404);
  });

  it('logs each served prediction once: a repeat with no new events comes from the cache', async () => {
    const first = await predict('userId=user-7');
    expect(await loggedRows('user-7')).toBe(MODELS.length);
    const repeat = await predict('userId=user-7');
    expect(repeat.body).toEqual(first.body);
    expect(await loggedRows('user-7')).toBe(MODELS.length);

    await sendEvents(t.api.baseUrl, t.org.token.secret, [{ event: 'click', userId: 'user-7', timestamp: new Date().toISOString() }]);
    await predict('userId=user-7');
    expect(await loggedRows('user-7')).toBe(2 * MODELS.length);
  });

  it("answers afresh exactly when something counting for the user was stored: own or linked anonymous events, a new link, not a duplicate", async () => {
    const send = (events: Array<Record<string, unknown>>) => sendEvents(t.api.baseUrl, t.org.token.secret, events);
    const now = () => new Date().toISOString();
    const logs = async (expected: number) => {
      await predict('userId=user-9');
      expect(await loggedRows('user-9')).toBe(expected * MODELS.length);
    };
    await logs(1);
    await send([{ event: 'click', userId: 'user-9', messageId: 'user-9-click', timestamp: now() }]);
    await logs(2);
    await send([{ event: 'click', userId: 'user-9', messageId: 'user-9-click', timestamp: now() }]); // a duplicate stores nothing
    await send([{ event: 'click', anonymousId: 'anon-9', timestamp: now() }]); // not linked to user-9 yet
    await logs(2);
    await send([{ event: 'identify', userId: 'user-9', anonymousId: 'anon-9', timestamp: now() }]);
    await logs(3);
    await send([{ event: 'click', anonymousId: 'anon-9', timestamp: now() }]); // linked now: counts for user-9
    await logs(4);
    // Re-linked to another user: user-9's history loses anon-9's events.
    await send([{ event: 'identify', userId: 'user-10', anonymousId: 'anon-9', timestamp: now() }]);
    await logs(5);
  });

  it('flushes buffered log rows when an API process shuts down gracefully', async () => {
    const api = await startApi(t.suite.env);
    const answer = await request<{ predictions: Prediction[] }>(`${api.baseUrl}/v1/predict?userId=user-8`, { token: t.org.token.secret });
    expect(answer.body.predictions).toHaveLength(MODELS.length);
    await api.stop(); // well within the 200 ms flush interval
    const [row] = await t.suite.sql<{ n: string }>(`SELECT count(*) AS n FROM predictions WHERE user_id = 'user-8' AND scoring_run IS NULL`);
    expect(Number(row.n)).toBe(MODELS.length);
  });

  it('drops alone a log row Postgres refuses: the rows flushed with it are stored, and the log is not stuck retrying', async () => {
    // A refusal no validation foresees, arranged in this suite's own database; the three users' rows share one flush.
    // The promotions' bulk scoring logged user-41 already; only served rows are at stake here.
    await t.suite.sql(`DELETE FROM predictions WHERE user_id = 'user-41' AND scoring_run IS NOT NULL`);
    await t.suite.sql(`ALTER TABLE predictions ADD CONSTRAINT refused_by_postgres CHECK (user_id <> 'user-41')`);
    try {
      await Promise.all(['user-41', 'user-42', 'user-43'].map((user) => predict(`userId=${user}`)));
      expect(await loggedRows('user-41')).toBe(0);
      expect(await loggedRows('user-42')).toBe(MODELS.length);
      expect(await loggedRows('user-43')).toBe(MODELS.length);
      expect(t.api.output()).toContain('prediction log row refused by Postgres; dropped');
      expect(t.api.output()).not.toContain('user-41');
    } finally {
      await t.suite.sql('ALTER TABLE predictions DROP CONSTRAINT refused_by_postgres');
    }
    await predict('userId=user-44');
    expect(await loggedRows('user-44')).toBe(MODELS.length);
  });

  describe('GET /v1/export/predictions', () => {
    const since = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);
    let expected: Array<{ id: string; user_id: string }>;

    beforeAll(async () => {
      for (let u = 10; u < 40; u++) await predict(`userId=user-${u}`);
      await logWritten();
      expected = await t.suite.sql(`SELECT p.id::text AS id, p.user_id FROM predictions p ORDER BY p.predicted_at, p.id`);
    });

    it('returns every logged prediction since yesterday, sorted by timestamp then id', async () => {
      const page = await get<Exported[]>(`/v1/export/predictions?since=${since}`);
      expect(page.status).toBe(200);
      expect(page.headers.get('link')).toBeNull();
      expect(page.body.map((row) => row.id)).toEqual(expected.map((row) => row.id));
      expect(page.body[0]).toEqual({
        id: expect.any(String),
        userId: expected[0].user_id,
        model: expect.any(String),
        modelId: expect.stringMatching(/^mdl_/),
        version: 1,
        label: expect.any(String),
        confidence: expect.any(Number),
        timestamp: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
      });
      for (let i = 1; i < page.body.length; i++) expect(page.body[i].timestamp >= page.body[i - 1].timestamp).toBe(true);
    });

    it('pages with Link headers covering every row exactly once', async () => {
      const seen: string[] = [];
      let url: string | undefined = `${t.api.baseUrl}/v1/export/predictions?since=${since}&limit=7`;
      while (url) {
        const page: Awaited<ReturnType<typeof request<Exported[]>>> = await request<Exported[]>(url, { token: t.org.token.secret });
        expect(page.status).toBe(200);
        expect(page.body.length).toBeLessThanOrEqual(7);
        seen.push(...page.body.map((row) => row.id));
        url = /<([^>]+)>; rel="next"/.exec(page.headers.get('link') ?? '')?.[1];
      }
      expect(seen).toEqual(expected.map((row) => row.id));
    });

    it('pages exactly through rows that share a millisecond (Postgres keeps microseconds)', async () => {
      const inserted = await t.suite.sql<{ id: string }>(
        `INSERT INTO predictions (organization_id, user_id, model_id, model_name, version_id, version, label, positive, confidence, inference_ms, predicted_at)
         SELECT $1, 'micro-' || i, 'mdl_micro', 'micro_model', 'ver_micro', 1, 'unlikely', false, 0.9, 0.1, date_trunc('milliseconds', now()) + i * interval '1 microsecond'
           FROM generate_series(1, 5) i RETURNING id::text`,
        [t.org.organization.id],
      );
      const seen: string[] = [];
      let url: string | undefined = `${t.api.baseUrl}/v1/export/predictions?since=${since}&model=micro_model&limit=2`;
      while (url) {
        const page: Awaited<ReturnType<typeof request<Exported[]>>> = await request<Exported[]>(url, { token: t.org.token.secret });
        seen.push(...page.body.map((row) => row.id));
        url = /<([^>]+)>; rel="next"/.exec(page.headers.get('link') ?? '')?.[1];
      }
      expect(seen).toEqual(inserted.map((row) => row.id));
      await t.suite.sql(`DELETE FROM predictions WHERE model_id = 'mdl_micro'`);
    });

    it('filters by model and by an exclusive until', async () => {
      const byModel = await get<Exported[]>(`/v1/export/predictions?since=${since}&model=checkout_gbdt`);
      expect(byModel.body.length).toBe(expected.length / MODELS.length);
      expect(new Set(byModel.body.map((row) => row.model))).toEqual(new Set(['checkout_gbdt']));
      expect((await get<Exported[]>(`/v1/export/predictions?since=${since}&until=${since}`)).status).toBe(400);
      expect((await get<Exported[]>(`/v1/export/predictions?since=2020-01-01&until=2020-01-02`)).body).toEqual([]);
    });

    it('streams every row as NDJSON', async () => {
      const response = await fetch(`${t.api.baseUrl}/v1/export/predictions?since=${since}&limit=3`, {
        headers: { authorization: `Bearer ${t.org.token.secret}`, accept: 'application/x-ndjson' },
      });
      expect(response.headers.get('content-type')).toContain('application/x-ndjson');
      const lines = (await response.text()).trim().split('\n').map((line) => JSON.parse(line) as Exported);
      expect(lines.map((row) => row.id)).toEqual(expected.map((row) => row.id));
    });

    it.each([
      ['no since', ''],
      ['a malformed since', 'since=yesterday'],
      ['a date that does not exist', 'since=2026-02-30'],
      ['limit 0', `since=${since}&limit=0`],
      ['limit above 100,000', `since=${since}&limit=100001`],
      ['a forged cursor', `since=${since}&cursor=bm90LWEtY3Vyc29y`],
      ['an unknown parameter', `since=${since}&offset=5`],
    ])('answers 400 for %s', async (_case, query) => {
      const response = await get<{ error: string }>(`/v1/export/predictions?${query}`);
      expect(response.status).toBe(400);
      expect(response.body.error).toBe('invalid_request');
    });

    it("exports nothing of another organization's predictions", async () => {
      expect((await get<Exported[]>(`/v1/export/predictions?since=${since}`, other.token.secret)).body).toEqual([]);
    });
  });

  it('serves a newly promoted version within 5 seconds, without restart', async () => {
    const modelId = modelIds[1];
    await request(`${t.api.baseUrl}/v1/models/retrain`, { token: t.org.token.secret, method: 'POST', body: { modelId } });
    const settled = await settledModel(t.api.baseUrl, t.org.token.secret, modelId, worker);
    expect(settled).toMatchObject({ status: 'active', version: 2 });
    const version = async () => (await predict('userId=user-99')).body.predictions.find((p) => p.modelId === modelId)?.version;
    await eventually('version 2 to serve', async () => ((await version()) === 2 ? true : undefined), 5_000);
  });
});
