import { randomBytes } from 'node:crypto';
import { Queue } from 'bullmq';
import { Registry } from 'prom-client';
import { derivedId, type DomainEvent, DomainEventsService, type DomainEventType, type JobPayloads, type JOBS, type Logger, QUEUES } from '@foresight/platform';
import { Model } from '../../libs/models/src/registry/model.entity';
import { ModelVersion } from '../../libs/models/src/registry/model-version.entity';
import type { TrainingProcessInput } from '../../libs/models/src/training-run/train-in-process';
import { type TrainingJob, TrainingRunService } from '../../libs/models/src/training-run/training-run.service';
import { DeliveryJobsService } from '../../libs/webhooks/src/delivery/delivery-jobs.service';
import { FanOutService } from '../../libs/webhooks/src/delivery/fan-out.service';
import { WebhookDelivery } from '../../libs/webhooks/src/webhook-delivery.entity';
import { fanOutQueued } from '../support/outbox';
import { openServiceDatabase, type ServiceDatabase } from '../support/service-database';
import { REDIS_URL } from '../support/services';
import { learnablePopulation, storeEvents } from '../support/training';

/** The test's database, for the training run's matrix. */
let mockDatabase: ServiceDatabase;

// Under Jest the training process's script (training.process.js) exists only in the build: the same matrix and fit run in the test's thread, on its database.
jest.mock('../../libs/models/src/training-run/train-in-process', () => {
  const { TrainingEvents } = jest.requireActual<typeof import('../../libs/events/src/users/training-events')>('../../libs/events/src/users/training-events');
  const { DatasetBuilder } = jest.requireActual<typeof import('../../libs/models/src/dataset/dataset-builder')>('../../libs/models/src/dataset/dataset-builder');
  const { rowCount, trainModel } = jest.requireActual<typeof import('../../libs/models/src/training')>('../../libs/models/src/training');
  return {
    trainInProcess: async ({ model, fit }: TrainingProcessInput) => {
      const { split, ...dataset } = await new DatasetBuilder(new TrainingEvents(mockDatabase.sql), mockDatabase.config).build(model);
      return { dataset: { ...dataset, validationRows: rowCount(split.validation) }, model: trainModel({ ...fit, split }), seconds: { matrix: 0, fit: 0 }, peakRssMiB: 0 };
    },
  };
});

const ORGANIZATION = 'org_announcedwithcommit';
const FAILING_MODEL = 'mdl_announcedwithcommit';
const TRAINED_MODEL = 'mdl_announcedtrained';
const WEBHOOK = 'whk_announcedwithcommit';

/**
 * Domain events of a process that dies the moment its producer's transaction has committed: the first
 * call after the commit (queueing what was staged, or publishing anew) never returns, so nothing after
 * it happens, not even the producer's own error handling. `died` answers the events the producer
 * staged in that transaction.
 */
class DiesAfterCommit extends DomainEventsService {
  private die: (staged: readonly DomainEvent[]) => void = () => undefined;
  readonly died = new Promise<readonly DomainEvent[]>((resolve) => (this.die = resolve));

  override publishAll(): Promise<never> {
    return this.dead([]);
  }

  override queueStaged(events: readonly DomainEvent[]): Promise<never> {
    return this.dead(events);
  }

  private dead(staged: readonly DomainEvent[]): Promise<never> {
    this.die(staged);
    return new Promise<never>(() => undefined);
  }
}

const silent = { warn: () => undefined, info: () => undefined, error: () => undefined } as unknown as Logger;

/**
 * A producer's event commits with the change it announces (the domain events' outbox, staged in the
 * producer's transaction): a process that dies right after the commit loses no event, the retry,
 * which finds the change made, does not announce it again, and the resumer's fan-out delivers it once.
 */
describe('events announced with their commit', () => {
  let db: ServiceDatabase;
  let queue: Queue<DomainEvent>;
  let deliveries: Queue<JobPayloads[typeof JOBS.webhooks.deliver]>;
  let domainEvents: DomainEventsService;
  let fanOut: FanOutService;
  const prefix = `it-announced-${randomBytes(4).toString('hex')}`;

  /**
   * TrainingRunService on the real database, its matrix built from the organization's events. The
   * model registry is reached only after the events are queued (a promotion's bulk scoring), which
   * no run here gets to.
   */
  const trainingRuns = (events: DomainEventsService) =>
    new TrainingRunService(
      db.dataSource,
      db.sql,
      db.dataSource.getRepository(Model),
      events,
      undefined as never,
      silent,
      new Registry(),
    );

  beforeAll(async () => {
    db = await openServiceDatabase('announced_with_commit', { entities: [Model, ModelVersion, WebhookDelivery] });
    mockDatabase = db;
    queue = new Queue<DomainEvent>(QUEUES.domainEvents, { connection: { url: REDIS_URL }, prefix });
    deliveries = new Queue<JobPayloads[typeof JOBS.webhooks.deliver]>(QUEUES.webhooks, { connection: { url: REDIS_URL }, prefix });
    domainEvents = new DomainEventsService(queue, db.sql);
    fanOut = new FanOutService(db.sql, db.dataSource.getRepository(WebhookDelivery), new DeliveryJobsService(deliveries, db.config, db.sql), domainEvents);
    await db.dataSource.query(`INSERT INTO organizations (id, name, region) VALUES ($1, $1, 'eu')`, [ORGANIZATION]);
    await db.dataSource.query(`INSERT INTO webhooks (id, organization_id, url, events, secret_encrypted) VALUES ($1, $2, 'https://example.test/hook', '{model.failed,model.retrained}', 'sealed')`, [
      WEBHOOK,
      ORGANIZATION,
    ]);
    for (const [id, algorithm] of [[FAILING_MODEL, 'gbdt'], [TRAINED_MODEL, 'logistic']]) {
      await db.dataSource.query(
        `INSERT INTO models (id, organization_id, name, target_event, horizon_days, algorithm, labels, status) VALUES ($1, $2, $1, 'checkout', 7, $3, '{unlikely,likely}', 'untrained')`,
        [id, ORGANIZATION, algorithm],
      );
    }
    await storeEvents(db.dataSource, ORGANIZATION, learnablePopulation(200, 60));
  });

  afterAll(async () => {
    await queue?.obliterate({ force: true });
    await deliveries?.obliterate({ force: true });
    await Promise.all([queue?.close(), deliveries?.close()]);
    await db?.close();
  });

  /** The model as POST /v1/models/retrain leaves it: retraining since now, the job that names that start. */
  const retrainingStarted = async (modelId: string): Promise<TrainingJob> => {
    const startedAt = new Date().toISOString();
    await db.dataSource.query(`UPDATE models SET status = 'retraining', retrain_started_at = $2 WHERE id = $1`, [modelId, startedAt]);
    return { organizationId: ORGANIZATION, modelId, startedAt };
  };
  const outboxed = async (type: DomainEventType): Promise<DomainEvent[]> =>
    (await db.dataSource.query<Array<{ event: DomainEvent }>>(`SELECT event FROM domain_event_outbox WHERE organization_id = $1 AND event->>'type' = $2`, [ORGANIZATION, type])).map(
      (row) => row.event,
    );
  const deliveriesOf = (eventId: string): Promise<Array<{ webhook_id: string }>> =>
    db.dataSource.query(`SELECT webhook_id FROM webhook_deliveries WHERE organization_id = $1 AND event_id = $2`, [ORGANIZATION, eventId]);
  /** The worker's resumer once the outbox's events have waited past its bound, then the fan-out of what it queued; answers how many it queued. */
  const resumedAndFannedOut = async (): Promise<number> => {
    await db.dataSource.query(`UPDATE domain_event_outbox SET created_at = now() - interval '5 minutes'`);
    const resumed = await domainEvents.resumeStranded();
    await fanOutQueued(fanOut, prefix);
    return resumed;
  };

  it("keeps a failed training run's model.failed when the worker dies after failing the model, and the resumer's fan-out delivers it once", async () => {
    const job = await retrainingStarted(FAILING_MODEL);
    const dying = new DiesAfterCommit(queue, db.sql);
    void trainingRuns(dying).fail(job, 'out of memory');
    const [staged] = await dying.died;

    const [{ status }] = await db.dataSource.query<Array<{ status: string }>>(`SELECT status FROM models WHERE id = $1`, [FAILING_MODEL]);
    expect(status).toBe('failed');
    const [event] = await outboxed('model.failed');
    expect(event).toEqual(staged);
    expect(event).toMatchObject({ id: derivedId('evt', `${ORGANIZATION}/model.failed/${FAILING_MODEL}:${job.startedAt}`), data: { modelId: FAILING_MODEL, error: 'out of memory' } });

    // The job's next attempt finds the run failed already: nothing more to announce.
    await trainingRuns(domainEvents).fail(job, 'out of memory');
    expect(await outboxed('model.failed')).toHaveLength(1);
    expect(await queue.getJob(event.id)).toBeUndefined();

    expect(await resumedAndFannedOut()).toBe(1);
    expect({ deliveries: await deliveriesOf(event.id), outbox: await outboxed('model.failed') }).toEqual({ deliveries: [{ webhook_id: WEBHOOK }], outbox: [] });
  });

  it("keeps a training run's version, its promotion and its model.retrained when the worker dies right after they commit; the retry stores nothing more, and the resumer's fan-out delivers it once", async () => {
    const job = await retrainingStarted(TRAINED_MODEL);
    const dying = new DiesAfterCommit(queue, db.sql);
    void trainingRuns(dying).run(job, 'lock-of-the-first-attempt');
    const [staged] = await dying.died;

    const versions = () => db.dataSource.query<Array<{ id: string; version: number; state: string }>>(`SELECT id, version, state FROM model_versions WHERE model_id = $1`, [TRAINED_MODEL]);
    const [stored] = await versions();
    expect(await versions()).toEqual([{ id: stored.id, version: 1, state: 'serving' }]);
    const model = () => db.dataSource.query<Array<{ status: string; serving_version_id: string }>>(`SELECT status, serving_version_id FROM models WHERE id = $1`, [TRAINED_MODEL]);
    expect(await model()).toEqual([{ status: 'active', serving_version_id: stored.id }]);
    expect(await outboxed('model.retrained')).toEqual([staged]);
    expect(staged).toMatchObject({ id: derivedId('evt', `${ORGANIZATION}/model.retrained/${stored.id}`), data: { modelId: TRAINED_MODEL, version: 1, promoted: true } });
    expect(await queue.getJob(staged.id)).toBeUndefined();

    // The job's retry, under the lock of whichever worker takes the stalled job over: the run is over, nothing is stored or announced again.
    await trainingRuns(domainEvents).run(job, 'lock-of-the-retry');
    expect({ versions: await versions(), model: await model(), outbox: await outboxed('model.retrained') }).toEqual({
      versions: [{ id: stored.id, version: 1, state: 'serving' }],
      model: [{ status: 'active', serving_version_id: stored.id }],
      outbox: [staged],
    });

    expect(await resumedAndFannedOut()).toBe(1);
    expect({ deliveries: await deliveriesOf(staged.id), outbox: await outboxed('model.retrained') }).toEqual({ deliveries: [{ webhook_id: WEBHOOK }], outbox: [] });
    // Nothing left for a later look of the resumer either.
    expect(await resumedAndFannedOut()).toBe(0);
    expect(await deliveriesOf(staged.id)).toHaveLength(1);
  });
});
