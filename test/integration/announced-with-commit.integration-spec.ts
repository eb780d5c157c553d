import { randomBytes } from 'node:crypto';
import { Queue } from 'bullmq';
import { Registry } from 'prom-client';
import { derivedId, type DomainEvent, DomainEventsService, type DomainEventType, type Logger, QUEUES } from '@foresight/platform';
import { TrainingRunService } from '../../libs/models/src/training-run/training-run.service';
import { openServiceDatabase, type ServiceDatabase } from '../support/service-database';
import { REDIS_URL } from '../support/services';

const ORGANIZATION = 'org_announcedwithcommit';
const MODEL = 'mdl_announcedwithcommit';

/** Domain events whose process dies the moment its producer's transaction has committed: nothing after the commit happens. */
class DiesAfterCommit extends DomainEventsService {
  override async publishAll(): Promise<never> {
    throw new Error('the process died after the commit');
  }

  override async queueStaged(): Promise<never> {
    throw new Error('the process died after the commit');
  }
}

const silent = { warn: () => undefined, info: () => undefined, error: () => undefined } as unknown as Logger;

/**
 * A producer's event commits with the change it announces (the domain events' outbox, staged in the
 * producer's transaction): a process that dies right after the commit loses no event, and the retry,
 * which finds the change made, does not need to announce it again.
 */
describe('events announced with their commit', () => {
  let db: ServiceDatabase;
  let queue: Queue<DomainEvent>;
  let domainEvents: DomainEventsService;
  const prefix = `it-announced-${randomBytes(4).toString('hex')}`;

  /** TrainingRunService as far as failing a run goes: its other collaborators are not reached. */
  const trainingRuns = (events: DomainEventsService) =>
    new TrainingRunService(undefined as never, db.dataSource, db.sql, undefined as never, events, undefined as never, silent, new Registry());

  beforeAll(async () => {
    db = await openServiceDatabase('announced_with_commit');
    queue = new Queue<DomainEvent>(QUEUES.domainEvents, { connection: { url: REDIS_URL }, prefix });
    domainEvents = new DomainEventsService(queue, db.sql);
    await db.dataSource.query(`INSERT INTO organizations (id, name, region) VALUES ($1, $1, 'eu')`, [ORGANIZATION]);
    await db.dataSource.query(
      `INSERT INTO models (id, organization_id, name, target_event, horizon_days, algorithm, labels, status, retrain_started_at)
       VALUES ($1, $2, 'checkout_7d', 'checkout', 7, 'gbdt', '{unlikely,likely}', 'retraining', now())`,
      [MODEL, ORGANIZATION],
    );
  });

  afterAll(async () => {
    await queue?.obliterate({ force: true });
    await queue?.close();
    await db?.close();
  });

  const outboxed = async (type: DomainEventType): Promise<DomainEvent[]> =>
    (await db.dataSource.query<Array<{ event: DomainEvent }>>(`SELECT event FROM domain_event_outbox WHERE organization_id = $1 AND event->>'type' = $2`, [ORGANIZATION, type])).map(
      (row) => row.event,
    );

  it("keeps a failed training run's model.failed when the worker dies after failing the model, and the resumer queues it once", async () => {
    const job = { organizationId: ORGANIZATION, modelId: MODEL, startedAt: new Date().toISOString() };
    await expect(trainingRuns(new DiesAfterCommit(queue, db.sql)).fail(job, 'out of memory')).rejects.toThrow('the process died after the commit');

    const [{ status }] = await db.dataSource.query<Array<{ status: string }>>(`SELECT status FROM models WHERE id = $1`, [MODEL]);
    expect(status).toBe('failed');
    const [event] = await outboxed('model.failed');
    expect(event).toMatchObject({ id: derivedId('evt', `${ORGANIZATION}/model.failed/${MODEL}:${job.startedAt}`), data: { modelId: MODEL, model: 'checkout_7d', error: 'out of memory' } });

    // The job's next attempt finds the run failed already: nothing more to announce.
    await trainingRuns(domainEvents).fail(job, 'out of memory');
    expect(await outboxed('model.failed')).toHaveLength(1);
    expect(await queue.getJob(event.id)).toBeUndefined();

    await db.dataSource.query(`UPDATE domain_event_outbox SET created_at = now() - interval '5 minutes'`);
    expect(await domainEvents.resumeStranded()).toBe(1);
    expect((await queue.getJob(event.id))?.data).toMatchObject({ id: event.id, type: 'model.failed' });
  });
});
