import { randomBytes } from 'node:crypto';
import { Queue } from 'bullmq';
import type { EntityManager } from 'typeorm';
import { type DomainEvent, DomainEventsService, type JobPayloads, JOBS, QUEUES } from '@foresight/platform';
import { DomainEventOutboxPersonalDataService } from '../../libs/platform/src/privacy/domain-event-outbox-personal-data.service';
import { DeliveryJobsService } from '../../libs/webhooks/src/delivery/delivery-jobs.service';
import { FanOutService } from '../../libs/webhooks/src/delivery/fan-out.service';
import { WebhookDelivery } from '../../libs/webhooks/src/webhook-delivery.entity';
import { fanOutQueued } from '../support/outbox';
import { openServiceDatabase, type ServiceDatabase } from '../support/service-database';
import { REDIS_URL } from '../support/services';
import { deleteRedisKeys } from '../support/suite';

type DeliverPayload = JobPayloads[typeof JOBS.webhooks.deliver];

/**
 * The domain events' outbox against real PostgreSQL and real BullMQ queues: an event whose job Redis
 * lost between its publish and its fan-out is queued again from PostgreSQL by the resumer, and fanned
 * out to one delivery per endpoint however often it is queued again or published again.
 */
describe('domain event outbox', () => {
  let db: ServiceDatabase;
  let announcements: Queue<DomainEvent>;
  let deliveries: Queue<DeliverPayload>;
  let domainEvents: DomainEventsService;
  let fanOut: FanOutService;
  const prefix = `it-outbox-${randomBytes(4).toString('hex')}`;
  const data = { modelId: 'mdl_a', model: 'checkout', version: 2, promoted: true, auc: 0.8, accuracy: 0.7, rejectionReason: null };

  beforeAll(async () => {
    db = await openServiceDatabase('domain_event_outbox', { entities: [WebhookDelivery] });
    announcements = new Queue<DomainEvent>(QUEUES.domainEvents, { connection: { url: REDIS_URL }, prefix });
    deliveries = new Queue<DeliverPayload>(QUEUES.webhooks, { connection: { url: REDIS_URL }, prefix });
    domainEvents = new DomainEventsService(announcements, db.sql);
    fanOut = new FanOutService(db.sql, db.dataSource.getRepository(WebhookDelivery), new DeliveryJobsService(deliveries, db.config, db.sql), domainEvents);
    await db.dataSource.query(`INSERT INTO organizations (id, name, region) VALUES ('org_a', 'A', 'eu')`);
    await db.dataSource.query(`INSERT INTO webhooks (id, organization_id, url, events, secret_encrypted) VALUES ('whk_a', 'org_a', 'https://example.test/hook', '{model.retrained}', 'sealed')`);
  });

  afterAll(async () => {
    await announcements?.obliterate({ force: true });
    await deliveries?.obliterate({ force: true });
    await Promise.all([announcements?.close(), deliveries?.close()]);
    await db?.close();
  });

  /** The resumer's look, once the outbox rows are older than its bound. */
  async function resumedLater(): Promise<number> {
    await db.dataSource.query(`UPDATE domain_event_outbox SET created_at = now() - interval '5 minutes'`);
    return domainEvents.resumeStranded();
  }

  const fannedOut = () => fanOutQueued(fanOut, prefix);

  const deliveryRows = (eventId: string): Promise<Array<{ webhook_id: string }>> => db.dataSource.query(`SELECT webhook_id FROM webhook_deliveries WHERE organization_id = 'org_a' AND event_id = $1`, [eventId]);
  const outboxRows = (): Promise<Array<{ event_id: string }>> => db.dataSource.query(`SELECT event_id FROM domain_event_outbox`);

  it('queues again from PostgreSQL an event whose job Redis lost before its fan-out, and delivers it once', async () => {
    const event = await domainEvents.publish('org_a', 'model.retrained', data, 'ver_lost');
    await deleteRedisKeys(prefix);
    expect(await announcements.getJob(event.id)).toBeUndefined();

    expect(await resumedLater()).toBe(1);
    await fannedOut();
    expect({ deliveries: await deliveryRows(event.id), outbox: await outboxRows() }).toEqual({ deliveries: [{ webhook_id: 'whk_a' }], outbox: [] });
    expect(await domainEvents.resumeStranded()).toBe(0);
  });

  it('makes no second delivery of an event published again after its fan-out, once the resumer has queued it again', async () => {
    const event = await domainEvents.publish('org_a', 'model.retrained', data, 'ver_again');
    await fannedOut();
    // A producer retried after the fan-out: the row is back, and the completed job's id keeps its new job out.
    expect((await domainEvents.publish('org_a', 'model.retrained', data, 'ver_again')).id).toBe(event.id);
    expect(await outboxRows()).toEqual([{ event_id: event.id }]);

    expect(await resumedLater()).toBe(1);
    await fannedOut();
    expect({ deliveries: await deliveryRows(event.id), outbox: await outboxRows() }).toEqual({ deliveries: [{ webhook_id: 'whk_a' }], outbox: [] });
  });

  it("stages events in the producer's transaction: rolled back, they are gone; committed by a producer that died before queueing them, the resumer queues them and each is delivered once", async () => {
    const staged = (dedupeKey: string) => (manager: EntityManager) => domainEvents.stage(db.sql.within(manager), 'org_a', 'model.retrained', [{ data, dedupeKey }]);
    await expect(
      db.dataSource.transaction(async (manager) => {
        await staged('ver_rolled_back')(manager);
        throw new Error('the chunk failed after its events were staged');
      }),
    ).rejects.toThrow('the chunk failed');
    expect(await outboxRows()).toEqual([]);

    // Committed, then the producer dies: nothing queued.
    const [event] = await db.dataSource.transaction(staged('ver_died'));
    expect({ outbox: await outboxRows(), job: await announcements.getJob(event.id) }).toEqual({ outbox: [{ event_id: event.id }], job: undefined });
    expect(await resumedLater()).toBe(1);
    await fannedOut();
    expect({ deliveries: await deliveryRows(event.id), outbox: await outboxRows() }).toEqual({ deliveries: [{ webhook_id: 'whk_a' }], outbox: [] });

    // Committed and queued after the commit, as a live producer does: the same path as publish.
    const [queued] = await db.dataSource.transaction(staged('ver_queued'));
    await domainEvents.queueStaged([queued]);
    await fannedOut();
    expect({ deliveries: await deliveryRows(queued.id), outbox: await outboxRows() }).toEqual({ deliveries: [{ webhook_id: 'whk_a' }], outbox: [] });
  });

  it("erases the user's events from the outbox and takes the user out of audience batches, which are fanned out without them", async () => {
    await db.dataSource.query(`INSERT INTO webhooks (id, organization_id, url, events, secret_encrypted) VALUES ('whk_b', 'org_a', 'https://example.test/audiences', '{audience.entered}', 'sealed')`);
    const store = new DomainEventOutboxPersonalDataService(db.sql);
    await domainEvents.publish('org_a', 'prediction.updated', { userId: 'u-1', model: 'checkout', modelId: 'mdl_a', version: 2, label: 'likely', previousLabel: 'unlikely', confidence: 0.9 }, 'u-1/change');
    const batch = await domainEvents.publish(
      'org_a',
      'audience.entered',
      { audienceId: 'aud_a', audience: 'buyers', modelId: 'mdl_a', label: 'likely', runId: 'scr_a', batch: 0, userIds: ['u-1', 'u-2'] },
      'aud_a/scr_a/0',
    );
    expect((await store.export('org_a', 'u-1')).map((event) => (event as DomainEvent).type).sort()).toEqual(['audience.entered', 'prediction.updated']);

    expect(await store.erase('org_a', 'u-1')).toBe(2);
    expect(await store.remaining('org_a', 'u-1')).toBe(0);
    expect(await store.remaining('org_a', 'u-2')).toBe(1);
    await fannedOut();
    const payloads: Array<{ payload: DomainEvent }> = await db.dataSource.query(`SELECT payload FROM webhook_deliveries WHERE organization_id = 'org_a' AND event_id = $1`, [batch.id]);
    expect(payloads.map(({ payload }) => payload.data)).toEqual([expect.objectContaining({ userIds: ['u-2'] })]);
    expect(await outboxRows()).toEqual([]);
  });
});
