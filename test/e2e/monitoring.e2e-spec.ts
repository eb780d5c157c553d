import { eventually } from '../support/eventually';
import { request } from '../support/http';
import { cliJson, type RunningProcess, startApi, startWorker } from '../support/processes';
import { type OrganizationWithToken, TestSuite } from '../support/suite';
import { learnablePopulation, sendEvents, settledModel, type TestEvent } from '../support/training';
import { Receiver } from '../support/webhook-receiver';

interface Monitoring {
  modelId: string;
  accuracy: number;
  accuracySource: 'live' | 'validation';
  latencyMs: number | null;
  throughput: number;
  throughputUnit: string;
  drift: { metric: string; delta: number; status: string; state: string; sampleSize: number; minimumSample: number };
  psi: number | null;
  window: { maturedPredictions: number; predictions24h: number; driftComputedAt: string | null };
}

const USERS = 400;
const HORIZON_DAYS = 7;
const DAY = 86_400_000;

// Training comes first; each test then runs the monitoring job itself (`foresight monitor run`).
jest.setTimeout(240_000);

describe('monitoring: live accuracy, latency, throughput and drift', () => {
  let suite: TestSuite;
  let org: OrganizationWithToken;
  const apis: RunningProcess[] = [];
  let worker: RunningProcess;
  let receiver: Receiver;
  let modelId: string;
  const events: TestEvent[] = learnablePopulation(USERS, 100);

  const token = () => org.token.secret;
  const monitor = async () => (await request<Monitoring>(`${apis[0].baseUrl}/v1/models/monitor/${modelId}`, { token: token() })).body;
  async function predictAll(prefix: string, api: RunningProcess, from: number, to: number): Promise<number[]> {
    const confidences: number[] = [];
    for (let u = from; u < to; u++) {
      const answer = await request<{ predictions: Array<{ confidence: number }> }>(`${api.baseUrl}/v1/predict?userId=${prefix}${u}`, { token: token() });
      confidences.push(answer.body.predictions[0].confidence);
    }
    return confidences;
  }
  /** Runs the monitoring job now, in its own process (the operator command), and reads the figures it left. */
  const monitorNow = async () => {
    expect(await cliJson<{ models: number }>(suite.env, ['monitor', 'run'])).toMatchObject({ models: 1 });
    return monitor();
  };

  beforeAll(async () => {
    suite = await TestSuite.create('monitoring');
    org = await suite.createOrganization('monitoring', ['--rate-limit', '100000', '--burst', '200000']);
    // The schedule never fires during the test: every snapshot comes from the test's own runs, so two runs never race.
    const env = { ...suite.env, MONITORING_SCHEDULE: '0 0 1 1 *', WEBHOOK_ALLOWED_NETWORKS: '127.0.0.0/8', WEBHOOK_RETRY_SCHEDULE: '1s' };
    apis.push(await startApi(env), await startApi(env));
    await sendEvents(apis[0].baseUrl, token(), events);
    worker = await startWorker(env);
    receiver = await Receiver.start(() => 200);
    await request(`${apis[0].baseUrl}/v1/webhooks`, { token: token(), method: 'POST', body: { url: receiver.url, events: ['drift.detected'] } });
    const model = await request<{ id: string }>(`${apis[0].baseUrl}/v1/models`, {
      token: token(), method: 'POST', body: { name: 'checkout_7d', targetEvent: 'checkout', horizonDays: HORIZON_DAYS },
    });
    modelId = model.body.id;
    await request(`${apis[0].baseUrl}/v1/models/retrain`, { token: token(), method: 'POST', body: { modelId } });
    expect(await settledModel(apis[0].baseUrl, token(), modelId, worker)).toMatchObject({ status: 'active' });
  });

  afterAll(async () => {
    await Promise.all([...apis.map((api) => api.stop()), worker?.stop(), receiver?.close()]);
    await suite?.destroy();
  });

  it('measures no drift on fewer predictions than the minimum sample: insufficient_data, n of N, no drift.detected, no healthy day', async () => {
    expect((await monitor()).drift).toMatchObject({ status: 'none', state: 'not_run', sampleSize: 0, minimumSample: 300 });
    // A shifted population, as in the drift test below, but only 150 predictions: PSI on so few reads
    // moderate or worse several times in a hundred even without any drift, so nothing is measured.
    const few = learnablePopulation(150, 40, { seed: 7, prefix: 'few-', buyerShare: 0.95 });
    await sendEvents(apis[0].baseUrl, token(), few);
    await predictAll('few-', apis[0], 0, 150);

    const figures = await monitorNow();
    expect(figures.drift).toMatchObject({ status: 'none', state: 'insufficient_data', sampleSize: 150, minimumSample: 300 });
    expect(figures.psi).toBeNull();
    const listed = await request<Array<{ id: string; health: Array<{ day: string; health: string }> }>>(`${apis[0].baseUrl}/v1/models`, { token: token() });
    expect(listed.body.find((m) => m.id === modelId)?.health.every((day) => day.health === 'no_data')).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 2000)); // a drift.detected would be queued by now
    expect(receiver.requests).toHaveLength(0);
    // The tests below count their own population's predictions alone.
    await suite.sql(`DELETE FROM predictions WHERE organization_id = $1 AND user_id LIKE 'few-%'`, [org.organization.id]);
  });

  it('counts predictions served by two API processes in throughput and finds no drift to alert on in the population it learned from', async () => {
    const before = await monitor();
    expect(before).toMatchObject({ accuracySource: 'validation', throughput: 0, throughputUnit: 'predictions/min', drift: { metric: 'confidence_mean', status: 'none' } });

    await Promise.all([predictAll('user-', apis[0], 0, USERS / 2), predictAll('user-', apis[1], USERS / 2, USERS)]);
    const figures = await monitorNow();
    expect(figures.window.predictions24h).toBe(USERS);
    expect(figures.throughput * 15).toBeCloseTo(USERS, 6); // both processes' predictions, over 15 minutes
    expect(figures.latencyMs).toBeGreaterThan(0);
    // Today's 400 users against the validation rows at past cutoffs: the same population, not the same
    // rows, and how far they sit from the cutoffs moves with the time of day (PSI 0.04-0.09 three runs in a
    // minute, and low, 0.1-0.2, in 2 of 7 runs). Nothing to alert on: below moderate, no drift.detected.
    expect(figures.drift).toMatchObject({ status: expect.stringMatching(/^(none|low)$/), state: 'measured', sampleSize: USERS });
    expect(figures.psi).toBeLessThan(0.2);
    expect(receiver.requests).toHaveLength(0);
  });

  it('switches accuracy to live once predictions matured, equal to an independent count', async () => {
    // Time travel: the predictions above are moved HORIZON_DAYS + 1 days into the past, as if served then,
    // so their horizon has passed; what the users did afterwards is in the events this test sent.
    await suite.sql(`UPDATE predictions SET predicted_at = predicted_at - make_interval(days => $1)`, [HORIZON_DAYS + 1]);
    const logged = await suite.sql<{ user_id: string; positive: boolean; t: number }>(
      `SELECT user_id, positive, (extract(epoch FROM predicted_at) * 1000)::float8 AS t FROM predictions WHERE scoring_run IS NULL`,
    );
    const checkouts = new Map<string, number[]>();
    for (const e of events) if (e.event === 'checkout') checkouts.set(e.userId as string, [...(checkouts.get(e.userId as string) ?? []), Date.parse(e.timestamp as string)]);
    const correct = logged.filter((p) => {
      const did = (checkouts.get(p.user_id) ?? []).some((t) => t > p.t && t <= p.t + HORIZON_DAYS * DAY);
      return did === p.positive;
    }).length;

    const figures = await monitorNow();
    expect(figures.accuracySource).toBe('live');
    expect(figures.window.maturedPredictions).toBe(USERS);
    expect(figures.accuracy).toBeCloseTo(correct / USERS, 10);
  });

  it('reports drift with a matching delta sign after a shifted population, and announces drift.detected once', async () => {
    // Mostly likely buyers now: their calibrated confidences differ from the population the model learned on.
    const shifted = learnablePopulation(USERS, 40, { seed: 99, prefix: 'shifted-', buyerShare: 0.95 });
    await sendEvents(apis[0].baseUrl, token(), shifted);
    const confidences = await predictAll('shifted-', apis[1], 0, USERS);

    const figures = await monitorNow();
    expect(figures.window.predictions24h).toBe(USERS);
    const [version] = await suite.sql<{ mean: number }>(
      `SELECT (confidence_baseline->>'mean')::float8 AS mean FROM model_versions WHERE model_id = $1 AND state = 'serving'`,
      [modelId],
    );
    const independentDelta = confidences.reduce((a, b) => a + b, 0) / confidences.length - version.mean;
    expect(['moderate', 'high']).toContain(figures.drift.status);
    expect(Math.sign(figures.drift.delta)).toBe(Math.sign(independentDelta));
    expect(figures.drift.delta).toBeCloseTo(independentDelta, 4);
    expect(figures.psi).toBeGreaterThanOrEqual(0.2);

    const alert = await eventually('a drift.detected delivery', () => (receiver.requests.length > 0 ? receiver.bodies()[0] : undefined));
    expect(alert).toMatchObject({ type: 'drift.detected', data: { modelId, model: 'checkout_7d', status: figures.drift.status } });
    await monitorNow(); // another run at the same status announces nothing new
    expect(receiver.requests).toHaveLength(1);
  });

  it('keeps the figures as a history and exports Prometheus metrics', async () => {
    const history = await request<{ points: Array<{ computedAt: string; drift: { status: string } }> }>(
      `${apis[0].baseUrl}/v1/models/monitor/${modelId}/history?since=${new Date(Date.now() - 3_600_000).toISOString()}`,
      { token: token() },
    );
    expect(history.body.points).toHaveLength(5); // one per `monitor run` above, and nothing else
    expect(history.body.points.map((p) => p.drift.status)).toContain('none');
    const apiMetrics = await (await fetch(`${apis[1].metricsUrl}/metrics`)).text();
    expect(apiMetrics).toMatch(new RegExp(`foresight_predictions_total\\{model_id="${modelId}",source="inferred"\\} \\d+`));
    expect(apiMetrics).toContain('foresight_inference_duration_seconds_bucket');
    const workerMetrics = await (await fetch(`${worker.metricsUrl}/metrics`)).text();
    expect(workerMetrics).toMatch(/foresight_training_runs_total\{algorithm="gbdt",result="promoted"\} 1/);
    // The gauge is set by whichever process runs the job: the runs here were the CLI's, so the worker only declares it.
    expect(workerMetrics).toContain('# TYPE foresight_drift_psi gauge');
    expect(workerMetrics).toMatch(/foresight_queue_jobs\{queue="training",state="waiting"\} 0/);
  });

  it("answers 404 for another organization's model and 400 for a bad since", async () => {
    const other = await suite.createOrganization('other');
    expect((await request(`${apis[0].baseUrl}/v1/models/monitor/${modelId}`, { token: other.token.secret })).status).toBe(404);
    expect((await request(`${apis[0].baseUrl}/v1/models/monitor/${modelId}/history`, { token: other.token.secret })).status).toBe(404);
    expect((await request(`${apis[0].baseUrl}/v1/models/monitor/${modelId}/history?since=yesterday`, { token: token() })).status).toBe(400);
  });
});
