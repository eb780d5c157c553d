import { eventually } from '../support/eventually';
import { request } from '../support/http';
import { type RunningProcess, startApi, startWorker } from '../support/processes';
import { RedisCluster } from '../support/redis-cluster';
import { onTopology } from '../support/redis-servers';
import { type OrganizationWithToken, TestSuite } from '../support/suite';
import { learnablePopulation, sendEvents, settledModel, type TestEvent } from '../support/training';
import { Receiver } from '../support/webhook-receiver';

const DAY = 86_400_000;
const USERS = 400;
/** Users whose label the manual run flips (they start to look at pricing): its announcements. */
const FLIPPED = 12;

function pricingLooks(userId: string): TestEvent[] {
  const events: TestEvent[] = [];
  for (let day = 2; day >= 0; day--) {
    const start = Date.now() - day * DAY - 3600_000;
    for (let k = 0; k < 5; k++) events.push({ event: 'screen_view', userId, timestamp: new Date(start + k * 60_000).toISOString(), properties: { screen: 'pricing', dwellMs: 8000 } });
  }
  return events;
}

/**
 * A run shared by many workers: 2 APIs and 3 workers on a real Redis Cluster (3 masters, 3 replicas)
 * and one database, a run split into shards that any worker takes, workers killed (SIGKILL) in the
 * middle of their shards and others started. Every active user is scored exactly once per run, and
 * every label change is delivered once (at least once where a worker died right after a delivery).
 */
describe('sharded bulk scoring across processes', () => {
  let cluster: RedisCluster;
  let suite: TestSuite;
  let org: OrganizationWithToken;
  const apis: RunningProcess[] = [];
  let workers: RunningProcess[] = [];
  let receiver: Receiver;
  let modelId: string;
  let env: Record<string, string>;

  const token = () => org.token.secret;
  const runState = async (runId: string) =>
    (await suite.sql<{ state: string; scored: number; total: number | null }>(`SELECT state, scored, total FROM scoring_runs WHERE organization_id = $1 AND id = $2`, [org.organization.id, runId]))[0];
  const runRows = async (runId: string) => {
    const [row] = await suite.sql<{ rows: string; pairs: string; users: string }>(
      `SELECT count(*) AS rows, count(DISTINCT (user_id, model_id)) AS pairs, count(DISTINCT user_id) AS users FROM predictions WHERE scoring_run = $1`,
      [runId],
    );
    return { rows: Number(row.rows), pairs: Number(row.pairs), users: Number(row.users) };
  };
  const activeUsers = async (): Promise<number> =>
    Number(
      (
        await suite.sql<{ n: string }>(
          `SELECT count(DISTINCT user_id) AS n FROM events WHERE organization_id = $1 AND user_id IS NOT NULL AND occurred_at >= now() - interval '30 days'`,
          [org.organization.id],
        )
      )[0].n,
    );

  beforeAll(async () => {
    cluster = await RedisCluster.start();
    suite = await TestSuite.create('sharded_scoring');
    org = await suite.createOrganization('sharded', ['--rate-limit', '100000', '--burst', '200000']);
    // Small chunks and six shards (of 400 users, with 50 users a shard): a run lasts long enough to kill workers in the middle of their shards.
    env = {
      ...onTopology(suite.env, cluster.env()),
      WEBHOOK_ALLOWED_NETWORKS: '127.0.0.0/8',
      WEBHOOK_RETRY_SCHEDULE: '1s',
      SCORING_CHUNK_USERS: '2',
      SCORING_SHARDS: '6',
      SCORING_SHARD_USERS: '50',
    };
    // One after the other: processes starting at once on a loaded machine can each miss the start timeout.
    for (let i = 0; i < 2; i++) apis.push(await startApi(env));
    await sendEvents(apis[0].baseUrl, token(), learnablePopulation(USERS, 100, { intentShiftDays: 14 }));
    for (let i = 0; i < 3; i++) workers.push(await startWorker(env));
    const model = await request<{ id: string }>(`${apis[1].baseUrl}/v1/models`, {
      token: token(), method: 'POST', body: { name: 'pricing_view_7d', targetEvent: 'screen_view', horizonDays: 7, algorithm: 'logistic' },
    });
    modelId = model.body.id;
    await request(`${apis[0].baseUrl}/v1/models/retrain`, { token: token(), method: 'POST', body: { modelId } });
    expect(await settledModel(apis[0].baseUrl, token(), modelId, workers[0], 240_000)).toMatchObject({ status: 'active' });
    receiver = await Receiver.start(() => 200);
  }, 900_000);

  afterAll(async () => {
    await Promise.all([...apis, ...workers].map((p) => p.stop()));
    await receiver?.close();
    await suite?.destroy();
    await cluster?.stop();
  });

  it('scores every active user exactly once per run and delivers every change once, with workers killed mid-shard (again only where one died right after its 2xx)', async () => {
    const promoted = await eventually('the promotion run', async () => {
      const [run] = await suite.sql<{ id: string; state: string }>(`SELECT id, state FROM scoring_runs WHERE organization_id = $1 AND trigger = 'promotion'`, [org.organization.id]);
      return run?.state === 'completed' ? run : undefined;
    }, 240_000);
    const active = await activeUsers();
    expect(await runRows(promoted.id)).toEqual({ rows: active, pairs: active, users: active });

    // Users the promotion run was surest would not look at pricing start to, before any webhook exists (ingestion announces nothing).
    const flipped = (
      await suite.sql<{ user_id: string }>(`SELECT user_id FROM predictions WHERE scoring_run = $1 AND label = 'unlikely' ORDER BY confidence DESC LIMIT $2`, [promoted.id, FLIPPED])
    ).map((row) => row.user_id);
    await sendEvents(apis[1].baseUrl, token(), flipped.flatMap(pricingLooks));
    await request(`${apis[0].baseUrl}/v1/webhooks`, { token: token(), method: 'POST', body: { url: receiver.url, events: ['prediction.updated'] } });

    const started = await request<{ id: string }>(`${apis[1].baseUrl}/v1/models/${modelId}/score`, { token: token(), method: 'POST' });
    expect(started.status).toBe(202);
    const runId = started.body.id;
    // Kill -9 two of the three workers once the run is under way, and start two others; then the third, once more is done.
    const kills: number[] = [];
    const killAt = async (scored: number, victims: RunningProcess[]) => {
      await eventually(`the run to score ${scored} users`, async () => ((await runState(runId)).scored >= scored ? true : undefined), 240_000);
      kills.push(Date.now());
      await Promise.all(victims.map((worker) => worker.kill()));
      workers = workers.filter((worker) => !victims.includes(worker));
      for (let i = 0; i < victims.length; i++) workers.push(await startWorker(env));
    };
    await killAt(40, workers.slice(0, 2));
    const midway = await runState(runId);
    expect(midway.state).toBe('running');
    await killAt(Math.min(midway.scored + 60, active - 40), workers.slice(0, 1));

    const done = await eventually('the run to complete', async () => {
      const run = await runState(runId);
      return run.state === 'completed' ? run : undefined;
    }, 900_000);
    expect(done).toMatchObject({ scored: active, total: active });
    expect(await runRows(runId)).toEqual({ rows: active, pairs: active, users: active });
    expect(await suite.sql(`SELECT 1 FROM scoring_run_shards WHERE run_id = $1 AND (state <> 'completed' OR checkpoint_user_id IS NOT NULL)`, [runId])).toEqual([]);

    // Every change of this run against the promotion run's labels is delivered as one event, each once
    // (twice only where a worker was killed between the receiver's 2xx and recording it).
    const changed = (
      await suite.sql<{ user_id: string }>(
        `SELECT a.user_id FROM predictions a JOIN predictions b USING (organization_id, user_id, model_id)
          WHERE a.scoring_run = $1 AND b.scoring_run = $2 AND a.label <> b.label ORDER BY 1`,
        [runId, promoted.id],
      )
    ).map((row) => row.user_id);
    expect(changed.length).toBeGreaterThan(0);
    // A worker killed between a chunk's commit and queueing its announcements' jobs leaves them in the
    // outbox, where a worker's resumer finds them past a minute: in the worst case two minutes after the commit.
    const deliveredEvents = () => new Map(receiver.bodies().map((body) => [body.id, body.data.userId]));
    await eventually('every change delivered', () => (deliveredEvents().size >= changed.length ? true : undefined), 180_000);
    // Late duplicates would arrive within the retry schedule's second.
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    expect([...deliveredEvents().values()].sort()).toEqual(changed);
    expect(receiver.unexplainedRepeats(kills)).toEqual([]);
    // Each announcement left the outbox with its delivery: none is left behind to be sent again.
    expect(await suite.sql(`SELECT event_id FROM domain_event_outbox WHERE organization_id = $1 AND event->>'type' = 'prediction.updated'`, [org.organization.id])).toEqual([]);
  }, 1_800_000);
});
