import { eventually } from '../support/eventually';
import { request } from '../support/http';
import { type RunningProcess, startApi } from '../support/processes';
import { type OrganizationWithToken, TestSuite } from '../support/suite';
import { learnablePopulation, sendEvents, settledModel, type TestEvent } from '../support/training';

interface Version {
  version: number;
  state: string;
  validationRows: number;
  metrics: { threshold: number; precision: number; recall: number; positives: number; rows: number };
  featureImportance: Array<{ feature: string; weight: number; direction: string | null }>;
  curves: {
    reliability: Array<{ rows: number; meanPredicted: number | null; lower: number; upper: number }>;
    scoreHistogram: { positives: number[]; negatives: number[] };
    thresholds: Array<{ threshold: number; precision: number | null; recall: number; flaggedShare: number; truePositives: number; falsePositives: number }>;
  };
}

const USERS = 300;
const DAYS = 60;

/** The API the dashboard adds: versions, promote, PATCH, DELETE, events volume, a user's events. */
describe('dashboard API: versions, promote, update, delete, events volume', () => {
  let suite: TestSuite;
  let org: OrganizationWithToken;
  let other: OrganizationWithToken;
  let api: RunningProcess;
  let modelId: string;
  let readToken: string;
  const events: TestEvent[] = learnablePopulation(USERS, DAYS);
  const admin = () => ({ token: org.token.secret });
  const asOther = () => ({ token: other.token.secret });
  const url = (path: string) => `${api.baseUrl}/v1${path}`;
  const versions = async () => (await request<{ versions: Version[] }>(url(`/models/${modelId}/versions`), admin())).body.versions;
  const retrainAndSettle = async () => {
    await request(url('/models/retrain'), { ...admin(), method: 'POST', body: { modelId } });
    return settledModel(api.baseUrl, org.token.secret, modelId, api);
  };

  beforeAll(async () => {
    suite = await TestSuite.create('dashboard_api');
    org = await suite.createOrganization('dashboard_api', ['--rate-limit', '100000', '--burst', '200000']);
    other = await suite.createOrganization('other');
    api = await startApi({ ...suite.env, WORKER_MODE: 'inline' });
    await sendEvents(api.baseUrl, org.token.secret, events);
    const created = await request<{ id: string }>(url('/models'), { ...admin(), method: 'POST', body: { name: 'checkout_7d', targetEvent: 'checkout', algorithm: 'logistic' } });
    modelId = created.body.id;
    expect(await retrainAndSettle()).toMatchObject({ status: 'active', version: 1 });
    await retrainAndSettle();
    const read = await request<{ token: string }>(url('/tokens'), { ...admin(), method: 'POST', body: { environment: 'prod', scopes: ['read'] } });
    readToken = read.body.token;
  }, 240_000);

  afterAll(async () => {
    await api?.stop();
    await suite?.destroy();
  });

  it('lists every version newest first with curves that agree with its validation metrics', async () => {
    const listed = await versions();
    expect(listed.map((v) => v.version)).toEqual([2, 1]);
    expect(listed.filter((v) => v.state === 'serving')).toHaveLength(1);
    for (const { curves, metrics, validationRows, featureImportance } of listed) {
      // Every feature says which way it pushes; buyers view pricing more, so something raises the probability.
      for (const { direction } of featureImportance) expect(['raises', 'lowers', 'none']).toContain(direction);
      expect(featureImportance.some((f) => f.direction === 'raises')).toBe(true);
      expect(metrics.rows).toBe(validationRows);
      expect(curves.reliability.reduce((sum, bin) => sum + bin.rows, 0)).toBe(validationRows);
      for (const bin of curves.reliability) if (bin.meanPredicted !== null) expect(bin.meanPredicted).toBeGreaterThanOrEqual(bin.lower);
      expect(curves.scoreHistogram.positives.reduce((a, b) => a + b)).toBe(metrics.positives);
      expect(curves.scoreHistogram.negatives.reduce((a, b) => a + b)).toBe(validationRows - metrics.positives);
      // The curve at the decision threshold is the confusion matrix behind the stored precision and recall
      // (the metrics say 0 where the curve says null: nothing flagged).
      const atThreshold = curves.thresholds.find((point) => point.threshold === metrics.threshold);
      expect(atThreshold?.precision ?? 0).toBeCloseTo(metrics.precision, 12);
      expect(atThreshold?.recall).toBeCloseTo(metrics.recall, 12);
      expect(curves.thresholds[0].flaggedShare).toBeGreaterThan(curves.thresholds[curves.thresholds.length - 1].flaggedShare);
    }
  });

  it('promotes an earlier version (a rollback): it serves, the replaced one is retired, predictions follow', async () => {
    const target = (await versions()).find((v) => v.state !== 'serving') as Version;
    const promoted = await request<{ version: number; status: string }>(url(`/models/${modelId}/versions/${target.version}/promote`), { ...admin(), method: 'POST' });
    expect(promoted).toMatchObject({ status: 200, body: { version: target.version, status: 'active' } });
    const states = Object.fromEntries((await versions()).map((v) => [v.version, v.state]));
    expect(states[target.version]).toBe('serving');
    expect(Object.values(states).filter((state) => state === 'serving')).toHaveLength(1);
    await eventually('predictions from the promoted version', async () => {
      const answer = await request<{ predictions: Array<{ version: number }> }>(url('/predict?userId=user-1'), admin());
      return answer.body.predictions[0]?.version === target.version ? true : undefined;
    });

    expect((await request(url(`/models/${modelId}/versions/99/promote`), { ...admin(), method: 'POST' })).status).toBe(404);
    const bad = await request<{ error: string; message: string }>(url(`/models/${modelId}/versions/first/promote`), { ...admin(), method: 'POST' });
    expect(bad).toMatchObject({ status: 400, body: { error: 'invalid_request', message: expect.stringContaining('version') } });
  });

  it('renames a model and changes or stops its schedule; bad changes are 400 naming the field', async () => {
    const patch = (body: unknown) => request<Record<string, unknown>>(url(`/models/${modelId}`), { ...admin(), method: 'PATCH', body });
    expect(await patch({ name: 'checkout_week', schedule: '30 2 * * *' })).toMatchObject({ status: 200, body: { name: 'checkout_week', schedule: '30 2 * * *' } });
    expect((await patch({ schedule: null })).body).toMatchObject({ name: 'checkout_week', schedule: null });
    expect((await patch({ schedule: '*/10 * * * * *' })).body).toMatchObject({ error: 'invalid_request', details: [{ path: 'schedule' }] });
    expect((await patch({ name: 'Bad Name' })).status).toBe(400);
    expect((await patch({})).status).toBe(400);
    await request(url('/models'), { ...admin(), method: 'POST', body: { name: 'taken_name', targetEvent: 'checkout' } });
    expect((await patch({ name: 'taken_name' })).body).toMatchObject({ error: 'invalid_request', details: [{ path: 'name', message: 'already exists' }] });
  });

  it('counts events per bucket and name, and active users, from what was stored', async () => {
    const since = new Date(Date.now() - 10 * 86_400_000);
    since.setUTCHours(0, 0, 0, 0);
    const volume = await request<{ series: Array<{ event: string; count: number }>; activeUsers: Array<{ users: number }>; totals: Array<{ event: string; count: number }> }>(
      url(`/events/volume?bucket=day&since=${since.toISOString()}`),
      admin(),
    );
    expect(volume.status).toBe(200);
    const inWindow = events.filter((e) => Date.parse(e.timestamp as string) >= since.getTime());
    const expected = new Map<string, number>();
    for (const e of inWindow) expected.set(e.event as string, (expected.get(e.event as string) ?? 0) + 1);
    expect(new Map(volume.body.totals.map((t) => [t.event, t.count]))).toEqual(expected);
    expect(volume.body.series.reduce((sum, point) => sum + point.count, 0)).toBe(inWindow.length);
    const busiestDay = Math.max(...volume.body.activeUsers.map((bucket) => bucket.users));
    expect(busiestDay).toBeGreaterThan(0);
    expect(busiestDay).toBeLessThanOrEqual(new Set(inWindow.map((e) => e.userId)).size);

    expect((await request(url('/events/volume?bucket=minute'), admin())).status).toBe(400);
    expect((await request(url(`/events/volume?bucket=hour&since=${new Date(Date.now() - 40 * 86_400_000).toISOString()}`), admin())).status).toBe(400);
  });

  it('gives each model fourteen days of health, ending today, on the list and the details', async () => {
    const today = new Date().toISOString().slice(0, 10);
    const listed = (await request<Array<{ id: string; health: Array<{ day: string; health: string }> }>>(url('/models'), admin())).body;
    for (const { health } of listed) {
      expect(health).toHaveLength(14);
      expect(health[13].day).toBe(today);
      for (const day of health) expect(['healthy', 'degraded', 'failing', 'no_data']).toContain(day.health);
    }
    const details = await request<{ health: unknown[] }>(url(`/models/${modelId}`), admin());
    expect(details.body.health).toEqual(listed.find((m) => m.id === modelId)?.health);
  });

  it("lists a user's latest events newest first, names and times only", async () => {
    const answer = await request<{ events: Array<Record<string, unknown>> }>(url('/users/events?userId=user-3&limit=5'), admin());
    const mine = events.filter((e) => e.userId === 'user-3').sort((a, b) => Date.parse(b.timestamp as string) - Date.parse(a.timestamp as string));
    expect(answer.body.events).toEqual(mine.slice(0, 5).map((e) => ({ event: e.event, timestamp: e.timestamp, sessionId: null })));
    expect((await request(url('/users/events?userId=nobody-here'), admin())).status).toBe(404);
  });

  it("tells a token its own scopes", async () => {
    expect((await request(url('/tokens/current'), { token: readToken })).body).toMatchObject({ organizationId: org.organization.id, scopes: ['read'], environment: 'prod' });
    expect((await request(url('/tokens/current'), { token: 'pat_prod_nonsense' })).status).toBe(401);
  });

  it("gives another organization's token 404 for every id of this one, and changes nothing", async () => {
    const calls: Array<[string, string, unknown?]> = [
      ['GET', `/models/${modelId}/versions`],
      ['POST', `/models/${modelId}/versions/1/promote`],
      ['PATCH', `/models/${modelId}`, { name: 'stolen_model' }],
      ['DELETE', `/models/${modelId}`],
      ['GET', '/users/events?userId=user-3'],
    ];
    for (const [method, path, body] of calls) {
      expect(await request(url(path), { ...asOther(), method, body })).toMatchObject({ status: 404, body: { error: 'not_found' } });
    }
    expect((await request<{ totals: unknown[] }>(url('/events/volume?bucket=day'), asOther())).body.totals).toEqual([]);
    expect((await request<{ name: string }>(url(`/models/${modelId}`), admin())).body.name).toBe('checkout_week');
  });

  it('lets a read token look but not promote, change or delete', async () => {
    const read = { token: readToken };
    expect((await request(url(`/models/${modelId}/versions`), read)).status).toBe(200);
    expect((await request(url(`/models/${modelId}/versions/1/promote`), { ...read, method: 'POST' })).status).toBe(403);
    expect((await request(url(`/models/${modelId}`), { ...read, method: 'PATCH', body: { schedule: null } })).status).toBe(403);
    expect((await request(url(`/models/${modelId}`), { ...read, method: 'DELETE' })).status).toBe(403);
  });

  it('deletes a model: gone from the registry and from predictions, its logged predictions kept', async () => {
    const logged = async () => Number((await suite.sql<{ n: string }>('SELECT count(*) AS n FROM predictions WHERE model_id = $1 AND scoring_run IS NULL', [modelId]))[0].n);
    // The prediction log is written in batches: wait until the predictions made above are in it.
    const before = await eventually('the logged predictions', async () => {
      const n = await logged();
      return n > 0 ? n : undefined;
    });
    expect(await request(url(`/models/${modelId}`), { ...admin(), method: 'DELETE' })).toMatchObject({ status: 200, body: { status: 'deleted', modelId } });
    expect((await request(url(`/models/${modelId}`), admin())).status).toBe(404);
    expect((await request(url(`/models/${modelId}/versions`), admin())).status).toBe(404);
    expect(await suite.sql('SELECT 1 FROM model_versions WHERE model_id = $1', [modelId])).toEqual([]);
    await eventually('predictions without the deleted model', async () => {
      const answer = await request<{ predictions: unknown[] }>(url('/predict?userId=user-2'), admin());
      return answer.body.predictions.length === 0 ? true : undefined;
    });
    expect(await logged()).toBeGreaterThanOrEqual(before);
  });
});
