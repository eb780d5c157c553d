import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { JOBS, QUEUES } from '@foresight/platform';
import { eventually } from '../support/eventually';
import { request } from '../support/http';
import { type RunningProcess, startApi, startWorker } from '../support/processes';
import { deleteRedisKeys, type OrganizationWithToken, TestSuite } from '../support/suite';
import { learnablePopulation, sendEvents, settledModel } from '../support/training';
import { Receiver } from '../support/webhook-receiver';

/** The workers queue again, once a minute, what waited longer than a minute: allow a few rounds on a busy machine. */
const RECOVERED_WITHIN_MS = 6 * 60_000;

/**
 * Redis loses its data (restarted without its AOF, a failover to an empty replica) while the worker
 * runs: the work PostgreSQL says is unfinished is queued again from there, without a restart. Each
 * item below is left exactly as such a loss leaves it: a row saying work is owed, no job behind it.
 */
describe('Redis losing its data', () => {
  let suite: TestSuite;
  let org: OrganizationWithToken;
  let api: RunningProcess;
  let worker: RunningProcess;
  let receiver: Receiver;
  let training: Queue;
  let redis: Redis;
  /** The maintenance schedulers every worker registers at start-up, by queue. */
  let maintenance: Array<[Queue, string[]]>;
  /** The receiver fails every request until Redis has lost the delivery's job. */
  let receiverUp = false;

  beforeAll(async () => {
    suite = await TestSuite.create('redis_data_loss');
    org = await suite.createOrganization('redis_data_loss');
    // Retries a second apart and plenty of them: the delivery is still pending (its job delayed) when Redis loses it.
    const env = { ...suite.env, WEBHOOK_RETRY_SCHEDULE: Array.from({ length: 60 }, () => '1s').join(','), WEBHOOK_ALLOWED_NETWORKS: '127.0.0.0/8' };
    receiver = await Receiver.start(() => (receiverUp ? 200 : 500));
    api = await startApi(env);
    worker = await startWorker(env);
    const queue = (name: string) => new Queue(name, { connection: { url: suite.env.REDIS_URL }, prefix: `${suite.env.REDIS_PREFIX}bull` });
    training = queue(QUEUES.training);
    redis = new Redis(suite.env.REDIS_URL);
    maintenance = [
      [queue(QUEUES.events), [JOBS.events.ensurePartitions]],
      [queue(QUEUES.predictions), [JOBS.predictions.ensurePartitions, JOBS.predictions.monitor]],
      [queue(QUEUES.scoring), [JOBS.scoring.scoreDaily]],
      [queue(QUEUES.privacy), [JOBS.privacy.retention]],
    ];
  });

  afterAll(async () => {
    await training?.close();
    redis?.disconnect();
    await Promise.all((maintenance ?? []).map(([queue]) => queue.close()));
    await receiver?.close();
    await worker?.stop();
    await api?.stop();
    await suite?.destroy();
  });

  it('queues again webhook deliveries, published domain events, erasure sweeps, training runs and retraining schedules, and follows user activity again, from PostgreSQL', async () => {
    const token = org.token.secret;
    await sendEvents(api.baseUrl, token, learnablePopulation(300, 60));
    const webhook = await request<{ id: string }>(`${api.baseUrl}/v1/webhooks`, { token, method: 'POST', body: { url: receiver.url, events: ['model.retrained'] } });
    expect(webhook.status).toBe(200);
    const model = await request<{ id: string }>(`${api.baseUrl}/v1/models`, { token, method: 'POST', body: { name: 'checkout', targetEvent: 'checkout', schedule: '0 3 * * *' } });
    expect(model.status).toBe(200);
    const modelId = model.body.id;
    expect((await request(`${api.baseUrl}/v1/models/retrain`, { token, method: 'POST', body: { modelId } })).status).toBe(200);
    expect((await settledModel(api.baseUrl, token, modelId, worker, 5 * 60_000)).status).toBe('active');
    const [delivery] = await eventually('the model.retrained delivery to have failed once', async () => {
      const rows = await suite.sql<{ id: string }>(
        `SELECT id FROM webhook_deliveries WHERE organization_id = $1 AND status = 'pending' AND attempts >= 1`,
        [org.organization.id],
      );
      return rows.length > 0 ? rows : undefined;
    });
    // The first sweep waits 5 s: Redis loses it before it runs.
    expect((await request(`${api.baseUrl}/v1/users?userId=user-0`, { token, method: 'DELETE' })).status).toBe(200);

    // Ingestion re-scores the users of an organization subscribed to prediction.updated only while Redis lists it.
    const following = () => redis.sismember(`${suite.env.REDIS_PREFIX}user-activity:wanted`, org.organization.id);
    expect((await request(`${api.baseUrl}/v1/webhooks`, { token, method: 'POST', body: { url: receiver.url, events: ['prediction.updated'] } })).status).toBe(200);
    expect(await following()).toBe(1);

    await deleteRedisKeys(suite.env.REDIS_PREFIX);
    expect(await following()).toBe(0);
    receiverUp = true;
    expect(await training.getJobScheduler(`model-schedule:${modelId}`)).toBeUndefined();
    const registered = async () => (await Promise.all(maintenance.map(async ([queue, ids]) => Promise.all(ids.map(async (id) => ((await queue.getJobScheduler(id)) ? [id] : [])))))).flat(2);
    expect(await registered()).toEqual([]);
    // A run started just before the loss, as the loss leaves it: the model retraining, no job in Redis.
    await suite.sql(`UPDATE models SET status = 'retraining', retrain_started_at = now() - interval '2 minutes' WHERE id = $1 AND organization_id = $2`, [modelId, org.organization.id]);
    // An event published just before the loss, as the loss leaves it: in the outbox, its announce job gone before the fan-out.
    const lostEvent = {
      id: 'evt_lostbeforefanout',
      type: 'model.retrained',
      organizationId: org.organization.id,
      createdAt: new Date().toISOString(),
      data: { modelId, model: 'checkout', version: 1, promoted: true, auc: 0.8, accuracy: 0.8, rejectionReason: null },
    };
    await suite.sql(`INSERT INTO domain_event_outbox (organization_id, event_id, event, created_at) VALUES ($1, $2, $3, now() - interval '2 minutes')`, [
      org.organization.id,
      lostEvent.id,
      JSON.stringify(lostEvent),
    ]);

    // Every one is waited for, so a failure names each item that was not recovered, not only the first.
    const outcomes = await Promise.allSettled([
      eventually(
        'the pending delivery to reach the receiver',
        async () => {
          const [row] = await suite.sql<{ status: string }>('SELECT status FROM webhook_deliveries WHERE id = $1 AND organization_id = $2', [delivery.id, org.organization.id]);
          return row.status === 'succeeded' ? true : undefined;
        },
        RECOVERED_WITHIN_MS,
      ),
      eventually(
        'the event whose announce job was lost to be delivered, once',
        async () => {
          const rows = await suite.sql<{ status: string }>('SELECT status FROM webhook_deliveries WHERE event_id = $1 AND organization_id = $2', [lostEvent.id, org.organization.id]);
          return rows.some((row) => row.status === 'succeeded') ? rows : undefined;
        },
        RECOVERED_WITHIN_MS,
      ).then(async (rows) => {
        expect(rows).toEqual([{ status: 'succeeded' }]);
        expect(await suite.sql('SELECT event_id FROM domain_event_outbox WHERE organization_id = $1', [org.organization.id])).toEqual([]);
      }),
      eventually('the organization to be followed again for prediction.updated', async () => ((await following()) === 1 ? true : undefined), RECOVERED_WITHIN_MS),
      eventually(
        'the erasure to be confirmed by a sweep',
        async () => {
          const [row] = await suite.sql<{ status: string; attempts: number; sealed: string | null }>(
            'SELECT status, attempts, user_id_sealed AS sealed FROM erasures WHERE organization_id = $1',
            [org.organization.id],
          );
          return row.status === 'confirmed' ? row : undefined;
        },
        RECOVERED_WITHIN_MS,
      ).then((erasure) => {
        expect(erasure.attempts).toBeGreaterThanOrEqual(1);
        // The sealed id is kept only until the sweep confirms.
        expect(erasure.sealed).toBeNull();
      }),
      eventually('the retraining schedule to be registered again', async () => (await training.getJobScheduler(`model-schedule:${modelId}`))?.pattern, RECOVERED_WITHIN_MS).then(
        (pattern) => expect(pattern).toBe('0 3 * * *'),
      ),
      eventually(
        'the maintenance job schedulers (partitions, monitoring, daily scoring, retention) to be registered again',
        async () => {
          const ids = await registered();
          return ids.length === 5 ? ids : undefined;
        },
        RECOVERED_WITHIN_MS,
      ),
      eventually(
        'the lost training run to be run',
        async () => {
          const [row] = await suite.sql<{ status: string; versions: number }>(
            'SELECT status, (SELECT count(*)::int FROM model_versions v WHERE v.model_id = m.id) AS versions FROM models m WHERE id = $1',
            [modelId],
          );
          return row.status !== 'retraining' ? row : undefined;
        },
        RECOVERED_WITHIN_MS,
      ).then((row) => expect(row).toEqual({ status: 'active', versions: 2 })),
    ]);
    expect(outcomes.flatMap((outcome) => (outcome.status === 'rejected' ? [String(outcome.reason)] : []))).toEqual([]);
  }, 15 * 60_000);
});
