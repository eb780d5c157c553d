import { randomBytes } from 'node:crypto';
import { Queue, UnrecoverableError, Worker } from 'bullmq';
import { type JobPayloads, JOBS, QUEUES } from '@foresight/platform';
import { DeliveryJobsService } from '../../libs/webhooks/src/delivery/delivery-jobs.service';
import { openServiceDatabase, type ServiceDatabase } from '../support/service-database';
import { REDIS_URL } from '../support/services';

type DeliverPayload = JobPayloads[typeof JOBS.webhooks.deliver];

/**
 * The resumer of webhook deliveries left pending past their due time, against real PostgreSQL and a
 * real BullMQ queue: a delivery whose job failed for good without writing its row (the last attempt
 * met the database down) is queued again, not kept out by the failed job's id.
 */
describe('stranded webhook deliveries', () => {
  let db: ServiceDatabase;
  let queue: Queue<DeliverPayload>;
  let jobs: DeliveryJobsService;
  const prefix = `it-stranded-${randomBytes(4).toString('hex')}`;

  beforeAll(async () => {
    db = await openServiceDatabase('stranded_deliveries', { env: { WEBHOOK_RETRY_SCHEDULE: '1s,2s,3s' } });
    queue = new Queue<DeliverPayload>(QUEUES.webhooks, { connection: { url: REDIS_URL }, prefix });
    jobs = new DeliveryJobsService(queue, db.config, db.sql);
    await db.dataSource.query(`INSERT INTO organizations (id, name, region) VALUES ('org_a', 'A', 'eu')`);
    await db.dataSource.query(`INSERT INTO webhooks (id, organization_id, url, events, secret_encrypted) VALUES ('whk_a', 'org_a', 'https://example.test/hook', '{model.retrained}', 'sealed')`);
  });

  afterAll(async () => {
    await queue?.obliterate({ force: true });
    await queue?.close();
    await db?.close();
  });

  async function pendingDelivery(id: string, attempts: number): Promise<void> {
    await db.dataSource.query(
      `INSERT INTO webhook_deliveries (id, webhook_id, organization_id, event_id, event_type, payload, attempts, next_attempt_at)
       VALUES ($1, 'whk_a', 'org_a', $1, 'model.retrained', '{}', $2, now() - interval '5 minutes')`,
      [id, attempts],
    );
  }

  it('queues again a pending delivery whose job failed for good, with the retries its row has left', async () => {
    await pendingDelivery('dlv_failed', 1);
    await jobs.scheduled([{ deliveryId: 'dlv_failed', webhookId: 'whk_a', organizationId: 'org_a', attempts: 1 }]);
    // The job's last attempt fails (as when the database is down), leaving the row pending.
    const worker = new Worker<DeliverPayload>(QUEUES.webhooks, async () => {
      throw new UnrecoverableError('database unreachable');
    }, { connection: { url: REDIS_URL }, prefix });
    try {
      await new Promise<void>((resolve) => worker.on('failed', () => resolve()));
    } finally {
      await worker.close();
    }
    expect(await (await queue.getJob('dlv_failed'))?.getState()).toBe('failed');

    expect(await jobs.resumeStranded()).toBe(1);
    const again = await queue.getJob('dlv_failed');
    expect({ state: await again?.getState(), data: again?.data }).toEqual({
      state: 'waiting',
      data: { deliveryId: 'dlv_failed', webhookId: 'whk_a', organizationId: 'org_a', retryDelaysMs: [2_000, 3_000] },
    });
  });

  it('keeps a job that will still run as it is', async () => {
    await pendingDelivery('dlv_waiting', 0);
    await jobs.scheduled([{ deliveryId: 'dlv_waiting', webhookId: 'whk_a', organizationId: 'org_a', attempts: 0 }]);
    const before = await queue.getJob('dlv_waiting');
    await jobs.resumeStranded();
    const after = await queue.getJob('dlv_waiting');
    expect({ state: await after?.getState(), timestamp: after?.timestamp, retryDelaysMs: after?.data.retryDelaysMs }).toEqual({
      state: 'waiting',
      timestamp: before?.timestamp,
      retryDelaysMs: [1_000, 2_000, 3_000],
    });
  });
});
