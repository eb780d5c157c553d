import { randomBytes } from 'node:crypto';
import { Queue } from 'bullmq';
import { ActiveUsersService, type StoredUserId } from '@foresight/events';
import type { ModelsService } from '@foresight/models';
import { type JobPayloads, type JOBS, MonthlyPartitionsService, QUEUES } from '@foresight/platform';
import { storePredictions } from '../../libs/predictions/src/log/prediction-rows';
import { type ClaimedShard, LostShardLockError, ScoringRunsService } from '../../libs/predictions/src/scoring/scoring-runs.service';
import { openServiceDatabase, type ServiceDatabase } from '../support/service-database';
import { REDIS_URL } from '../support/services';

const ORGANIZATION = 'org_scoringfencing01';
const RUN = 'scr_fencing';

/**
 * A shard's writes are fenced by the lock token of the job that claimed it last: a worker that lost
 * its job's lock (another worker took the stalled shard over) can neither move the checkpoint nor
 * keep the prediction rows written with it, nor complete the shard.
 */
describe('bulk scoring shard fencing', () => {
  let db: ServiceDatabase;
  let queue: Queue<JobPayloads[typeof JOBS.scoring.scoreUsers] | JobPayloads[typeof JOBS.scoring.scoreShard]>;
  let predictionsQueue: Queue;
  let runs: ScoringRunsService;

  beforeAll(async () => {
    db = await openServiceDatabase('scoring_fencing', { env: { SCORING_SHARDS: '2', SCORING_SHARD_USERS: '1' } });
    const prefix = `it-fencing-${randomBytes(4).toString('hex')}`;
    queue = new Queue<JobPayloads[typeof JOBS.scoring.scoreUsers] | JobPayloads[typeof JOBS.scoring.scoreShard]>(QUEUES.scoring, { connection: { url: REDIS_URL }, prefix });
    predictionsQueue = new Queue(QUEUES.predictions, { connection: { url: REDIS_URL }, prefix });
    // ModelsService only checks a manual run's models, which these calls do not start.
    runs = new ScoringRunsService(db.sql, undefined as unknown as ModelsService, new ActiveUsersService(db.sql), queue, predictionsQueue, db.config);
    await new MonthlyPartitionsService(db.sql).ensureAll();
    await db.dataSource.query(`INSERT INTO organizations (id, name, region, retention_days) VALUES ($1, $1, 'eu', 30)`, [ORGANIZATION]);
    // Users enough for SCORING_SHARDS shards of SCORING_SHARD_USERS each.
    await db.dataSource.query(`INSERT INTO user_activity (organization_id, user_id) VALUES ($1, 'user-1'), ($1, 'user-2'), ($1, 'user-3')`, [ORGANIZATION]);
  });

  afterAll(async () => {
    for (const q of [queue, predictionsQueue]) {
      await q?.obliterate({ force: true });
      await q?.close();
    }
    await db?.close();
  });

  /** The chunk's transaction as bulk scoring commits it: a log row, then the fenced checkpoint. */
  const commitChunk = (shard: ClaimedShard, user: string) =>
    db.dataSource.transaction(async (manager) => {
      await storePredictions(
        db.sql,
        manager,
        [
          {
            organizationId: ORGANIZATION, userId: user as StoredUserId, modelId: 'mdl_a', modelName: 'a', versionId: 'ver_a', version: 1,
            label: 'likely', positive: true, confidence: 0.9, inferenceMs: 0.1, predictedAt: new Date(), scoringRun: RUN,
          },
        ],
        false,
      );
      await runs.checkpoint(db.sql.within(manager), shard, { lastUser: user, scored: 1, changed: 0 });
    });
  const rowsOf = async (user: string) =>
    Number((await db.dataSource.query<Array<{ n: string }>>(`SELECT count(*) AS n FROM predictions WHERE scoring_run = $1 AND user_id = $2`, [RUN, user]))[0].n);

  it("refuses a stale holder's checkpoint, its log rows and its completion; the new holder's go through", async () => {
    expect(await runs.split(RUN, { organizationId: ORGANIZATION, modelIds: ['mdl_a'], trigger: 'manual' })).toBe(2);
    expect((await queue.getJobs(['waiting'])).map((job) => job.id).sort()).toEqual([`${RUN}.shard-0`, `${RUN}.shard-1`]);

    const stale = (await runs.claim({ organizationId: ORGANIZATION, runId: RUN, shard: 0 }, 'lock-of-the-first-worker')) as ClaimedShard;
    await commitChunk(stale, 'ada');
    // The first worker stalls; the queue hands the shard to another worker, which claims it with its own lock token.
    const taken = (await runs.claim({ organizationId: ORGANIZATION, runId: RUN, shard: 0 }, 'lock-of-the-second-worker')) as ClaimedShard;
    expect(taken.afterUser).toBe('ada');

    await expect(commitChunk(stale, 'bob')).rejects.toThrow(LostShardLockError);
    expect(await rowsOf('bob')).toBe(0);
    await expect(runs.completeShard(stale)).rejects.toThrow(LostShardLockError);

    await commitChunk(taken, 'bob');
    expect(await rowsOf('bob')).toBe(1);
    const [shard] = await db.dataSource.query<Array<{ checkpoint_user_id: string; scored: number }>>(
      `SELECT checkpoint_user_id, scored FROM scoring_run_shards WHERE organization_id = $1 AND run_id = $2 AND shard = 0`,
      [ORGANIZATION, RUN],
    );
    expect(shard).toEqual({ checkpoint_user_id: 'bob', scored: 2 });

    // The run completes with its last shard, once.
    expect(await runs.completeShard(taken)).toBeUndefined();
    const last = (await runs.claim({ organizationId: ORGANIZATION, runId: RUN, shard: 1 }, 'lock-of-a-third-worker')) as ClaimedShard;
    expect(await runs.completeShard(last)).toMatchObject({ id: RUN, state: 'completed', scored: 2 });
    expect(await runs.claim({ organizationId: ORGANIZATION, runId: RUN, shard: 1 }, 'lock-of-a-fourth-worker')).toBeUndefined();
  });
});
