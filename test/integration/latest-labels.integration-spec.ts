import type { StoredUserId } from '@foresight/events';
import { MonthlyPartitionsService } from '@foresight/platform';
import { readLatestLabels } from '../../libs/predictions/src/log/latest-labels';
import { storePredictions } from '../../libs/predictions/src/log/prediction-rows';
import { openServiceDatabase, type ServiceDatabase } from '../support/service-database';

const ORGANIZATION = 'org_latestlabels01';
const USER = 'user-1' as StoredUserId;

/**
 * The previous label a re-scoring job compares with is the latest logged before the job was queued:
 * its own log rows (written before a death and a retry) and predictions asked for since do not count.
 */
describe('latest labels before a time', () => {
  let db: ServiceDatabase;
  const queuedAt = new Date(Date.now() - 60_000);

  beforeAll(async () => {
    db = await openServiceDatabase('latest_labels');
    await new MonthlyPartitionsService(db.sql).ensureAll();
    await db.dataSource.query(`INSERT INTO organizations (id, name, region) VALUES ($1, $1, 'eu')`, [ORGANIZATION]);
    const logged = (label: string, predictedAt: Date) => ({
      organizationId: ORGANIZATION, userId: USER, modelId: 'mdl_a', modelName: 'a', versionId: 'ver_a', version: 1,
      label, positive: label === 'likely', confidence: 0.9, inferenceMs: 0.1, predictedAt,
    });
    await db.dataSource.transaction((manager) =>
      storePredictions(db.sql, manager, [logged('unlikely', new Date(queuedAt.getTime() - 1_000)), logged('likely', new Date(queuedAt.getTime() + 1_000))], false),
    );
  });

  afterAll(async () => {
    await db?.close();
  });

  it('reads the label logged before the given time, and the latest of all without one', async () => {
    expect([...(await readLatestLabels(db.sql, ORGANIZATION, [USER], ['mdl_a'], queuedAt)).values()]).toEqual(['unlikely']);
    expect([...(await readLatestLabels(db.sql, ORGANIZATION, [USER], ['mdl_a'])).values()]).toEqual(['likely']);
    expect((await readLatestLabels(db.sql, ORGANIZATION, [USER], ['mdl_a'], new Date(queuedAt.getTime() - 5_000))).size).toBe(0);
  });
});
