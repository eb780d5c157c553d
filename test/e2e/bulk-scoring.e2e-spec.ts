import { eventually } from '../support/eventually';
import { request } from '../support/http';
import { type CliResult, runCli, type RunningProcess, startApi, startWorker } from '../support/processes';
import { type OrganizationWithToken, TestSuite } from '../support/suite';
import { learnablePopulation, sendEvents, settledModel, type TestEvent } from '../support/training';
import { Receiver } from '../support/webhook-receiver';

const DAY = 86_400_000;
const USERS = 400;

/** Five long looks at pricing a day over the last `days` days and today: what makes a browser "likely". */
function pricingLooks(userId: string, days: number): TestEvent[] {
  const events: TestEvent[] = [];
  for (let day = days; day >= 0; day--) {
    const start = Date.now() - day * DAY - 3600_000;
    for (let k = 0; k < 5; k++) events.push({ event: 'screen_view', userId, timestamp: new Date(start + k * 60_000).toISOString(), properties: { screen: 'pricing', dwellMs: 8000 } });
  }
  return events;
}

interface RunRows {
  rows: number;
  /** Distinct (user, model) pairs: equal to rows when no user was scored twice. */
  pairs: number;
  users: number;
  otherOrganizations: number;
}

describe('bulk scoring', () => {
  let suite: TestSuite;
  let org: OrganizationWithToken;
  let other: OrganizationWithToken;
  let api: RunningProcess;
  let worker: RunningProcess;
  let receiver: Receiver;
  let modelId: string;
  let otherModelId: string;
  /** One user per chunk, so a run lasts long enough to be killed in the middle. */
  let env: Record<string, string>;

  const token = () => org.token.secret;
  const runRows = async (runId: string): Promise<RunRows> => {
    const [row] = await suite.sql<Record<keyof RunRows, string>>(
      `SELECT count(*) AS rows, count(DISTINCT (user_id, model_id)) AS pairs, count(DISTINCT user_id) AS users,
              count(*) FILTER (WHERE organization_id <> $2) AS "otherOrganizations"
         FROM predictions WHERE scoring_run = $1`,
      [runId, org.organization.id],
    );
    return { rows: Number(row.rows), pairs: Number(row.pairs), users: Number(row.users), otherOrganizations: Number(row.otherOrganizations) };
  };
  const activeUsers = async (organizationId: string): Promise<string[]> =>
    (
      await suite.sql<{ user_id: string }>(
        `SELECT DISTINCT user_id FROM events WHERE organization_id = $1 AND user_id IS NOT NULL AND occurred_at >= now() - interval '30 days' ORDER BY 1`,
        [organizationId],
      )
    ).map((r) => r.user_id);
  const promotionRun = async (): Promise<{ id: string; state: string; scored: number; total: number }> =>
    eventually('the promotion scoring run', async () => {
      const [run] = await suite.sql<{ id: string; state: string; scored: number; total: number }>(
        `SELECT id, state, scored, total FROM scoring_runs WHERE organization_id = $1 AND trigger = 'promotion'`,
        [org.organization.id],
      );
      return run?.state === 'completed' ? run : undefined;
    }, 120_000);

  beforeAll(async () => {
    suite = await TestSuite.create('bulk_scoring');
    org = await suite.createOrganization('scoring', ['--rate-limit', '100000', '--burst', '200000']);
    other = await suite.createOrganization('scoring_other', ['--rate-limit', '100000', '--burst', '200000']);
    env = { ...suite.env, WEBHOOK_ALLOWED_NETWORKS: '127.0.0.0/8', WEBHOOK_RETRY_SCHEDULE: '1s', SCORING_CHUNK_USERS: '1' };
    api = await startApi(env);
    await sendEvents(api.baseUrl, token(), [
      ...learnablePopulation(USERS, 100, { intentShiftDays: 14 }),
      // Active before the feature window only: never scored.
      { event: 'click', userId: 'dormant-1', timestamp: new Date(Date.now() - 45 * DAY).toISOString() },
    ]);
    // The other organization has users of the same ids, and a model of its own.
    await sendEvents(api.baseUrl, other.token.secret, learnablePopulation(200, 100, { intentShiftDays: 14, seed: 5 }));
    worker = await startWorker(env);
    for (const [who, set] of [[org, (id: string) => (modelId = id)], [other, (id: string) => (otherModelId = id)]] as const) {
      const model = await request<{ id: string }>(`${api.baseUrl}/v1/models`, {
        token: who.token.secret, method: 'POST', body: { name: 'pricing_view_7d', targetEvent: 'screen_view', horizonDays: 7, algorithm: 'logistic' },
      });
      set(model.body.id);
      await request(`${api.baseUrl}/v1/models/retrain`, { token: who.token.secret, method: 'POST', body: { modelId: model.body.id } });
    }
    expect(await settledModel(api.baseUrl, token(), modelId, worker)).toMatchObject({ status: 'active' });
    expect(await settledModel(api.baseUrl, other.token.secret, otherModelId, worker)).toMatchObject({ status: 'active' });
    receiver = await Receiver.start(() => 200);
  }, 300_000);

  afterAll(async () => {
    await Promise.all([api?.stop(), worker?.stop(), receiver?.close()]);
    await suite?.destroy();
  });

  it('after a promotion, scores every user active within the window once, into the log that export reads', async () => {
    const run = await promotionRun();
    const active = await activeUsers(org.organization.id);
    expect(active.length).toBeGreaterThan(USERS / 2);
    expect(run).toMatchObject({ scored: active.length, total: active.length });
    expect(await runRows(run.id)).toEqual({ rows: active.length, pairs: active.length, users: active.length, otherOrganizations: 0 });
    expect(await suite.sql(`SELECT 1 FROM predictions WHERE user_id = 'dormant-1'`)).toEqual([]);
    // The run kept each scored user's window for serving, under the user's current revision, and the
    // inactive user's, holding no event, so the next run does not read that user's events again.
    const kept = await suite.sql<{ user_id: string; events: string }>(
      `SELECT w.user_id, w.events FROM user_windows w JOIN user_activity a USING (organization_id, user_id) WHERE w.organization_id = $1 AND w.revision = a.revision`,
      [org.organization.id],
    );
    expect(kept.map((row) => row.user_id).sort()).toEqual(['dormant-1', ...active].sort());
    expect(kept.filter((row) => row.events === '[]').map((row) => row.user_id)).toEqual(['dormant-1']);

    const exported = await request<Array<{ userId: string; model: string }>>(
      `${api.baseUrl}/v1/export/predictions?since=${new Date().toISOString().slice(0, 10)}&limit=100000`,
      { token: token() },
    );
    expect(exported.status).toBe(200);
    expect([...new Set(exported.body.map((p) => p.userId))].sort()).toEqual(active);
  });

  it("announces changed labels as prediction.updated, and continues a run whose worker was killed without scoring anyone twice", async () => {
    const promoted = await promotionRun();
    // A user the run was surest would not look at pricing starts to; sent before any webhook exists,
    // so ingestion re-scores nobody and the bulk run is the first to see the change.
    const [{ user_id: flipper }] = await suite.sql<{ user_id: string }>(
      `SELECT user_id FROM predictions WHERE scoring_run = $1 AND label = 'unlikely' ORDER BY confidence DESC LIMIT 1`,
      [promoted.id],
    );
    await sendEvents(api.baseUrl, token(), pricingLooks(flipper, 2));
    await request(`${api.baseUrl}/v1/webhooks`, { token: token(), method: 'POST', body: { url: receiver.url, events: ['prediction.updated'] } });

    const cli: Promise<CliResult> = runCli(env, ['model', 'score', '--org', org.organization.id, '--model', modelId]);
    const manual = await eventually('the manual run to be under way', async () => {
      const [run] = await suite.sql<{ id: string; scored: number }>(`SELECT id, scored FROM scoring_runs WHERE organization_id = $1 AND trigger = 'manual'`, [org.organization.id]);
      return run && run.scored >= 10 ? run : undefined;
    });
    await worker.kill();
    const stopped = await runRows(manual.id);
    const active = await activeUsers(org.organization.id);
    expect(stopped.rows).toBeLessThan(active.length);

    worker = await startWorker(env);
    const result = await cli;
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ run: manual.id, state: 'completed', scored: active.length, total: active.length });
    expect(result.stderr).toContain(`[${'#'.repeat(30)}] 100% ${active.length}/${active.length} users`);
    expect(await runRows(manual.id)).toEqual({ rows: active.length, pairs: active.length, users: active.length, otherOrganizations: 0 });

    const update = await eventually('a prediction.updated delivery', () => receiver.bodies().find((b) => b.data.userId === flipper));
    expect(update).toMatchObject({
      type: 'prediction.updated',
      data: { userId: flipper, model: 'pricing_view_7d', modelId, version: 1, label: 'likely', previousLabel: 'unlikely' },
    });
    // Every delivery is about a user whose label in this run differs from the promotion run's.
    const [{ changed }] = await suite.sql<{ changed: string }>(
      `SELECT count(*) AS changed FROM predictions a JOIN predictions b USING (organization_id, user_id, model_id)
        WHERE a.scoring_run = $1 AND b.scoring_run = $2 AND a.label <> b.label`,
      [manual.id, promoted.id],
    );
    await eventually('every change delivered', () => (receiver.bodies().length >= Number(changed) ? true : undefined));
    expect(new Set(receiver.bodies().map((b) => b.data.userId)).size).toBe(Number(changed));
  }, 240_000);

  it("never scores or shows another organization's users, and answers 404 for another organization's or an unknown model", async () => {
    const otherRun = await request<{ id: string; state: string }>(`${api.baseUrl}/v1/models/${otherModelId}/score`, { token: other.token.secret, method: 'POST' });
    expect(otherRun).toMatchObject({ status: 202, body: { state: 'queued', modelIds: [otherModelId] } });
    const done = await eventually('the other organization\'s run', async () => {
      const run = await request<{ state: string; scored: number; total: number }>(`${api.baseUrl}/v1/models/${otherModelId}/score/${otherRun.body.id}`, { token: other.token.secret });
      return run.body.state === 'completed' ? run.body : undefined;
    });
    const otherActive = await activeUsers(other.organization.id);
    expect(done).toMatchObject({ scored: otherActive.length, total: otherActive.length });
    const [{ foreign }] = await suite.sql<{ foreign: string }>(
      `SELECT count(*) AS foreign FROM predictions WHERE scoring_run = $1 AND organization_id <> $2`,
      [otherRun.body.id, other.organization.id],
    );
    expect(Number(foreign)).toBe(0);

    for (const [path, method] of [
      [`/v1/models/${otherModelId}/score`, 'POST'],
      ['/v1/models/mdl_0000000000000000/score', 'POST'],
      [`/v1/models/${otherModelId}/score/${otherRun.body.id}`, 'GET'],
      [`/v1/models/${modelId}/score/${otherRun.body.id}`, 'GET'],
    ] as const) {
      expect(await request(`${api.baseUrl}${path}`, { token: token(), method })).toMatchObject({ status: 404, body: { error: 'not_found' } });
    }
  }, 120_000);
});
