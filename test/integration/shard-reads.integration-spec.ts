import { ACTIVE_KEPT_USERS, DECLARE_KEPT_WINDOWS, USERS_TO_READ } from '../../libs/events/src/users/active-users.sql';
import { openServiceDatabase, type ServiceDatabase } from '../support/service-database';

const ORGANIZATIONS = ['org_shardreads000001', 'org_shardreads000002', 'org_shardreads000003'];
const USERS_PER_ORGANIZATION = 20_000;
/** One shard of 64: the range of hashtext(user id) a run cut into 64 shards gives its first shard. */
const SHARD = { hashFrom: -(2 ** 31), hashTo: -(2 ** 31) + 2 ** 26 - 1 };
const DAY = 86_400_000;
const until = new Date(Date.UTC(2026, 10, 21));
const from = new Date(until.getTime() - 30 * DAY);

/**
 * A shard of a bulk scoring run reads only its own users: on organizations of 20,000 users each, the
 * planner reads the shard's range of hashtext(user id) off the shard indexes of user_activity and
 * user_windows, instead of every row of the organization once per shard (which made a run cut into
 * 64 shards cost the database 66 % more per user than one of 16). The range expression in the
 * statements must stay the indexed one.
 */
describe('bulk scoring shard reads', () => {
  let db: ServiceDatabase;

  beforeAll(async () => {
    db = await openServiceDatabase('shard_reads');
    for (const organization of ORGANIZATIONS) {
      await db.dataSource.query(`INSERT INTO organizations (id, name, region, retention_days) VALUES ($1, $1, 'eu', 400)`, [organization]);
      await db.dataSource.query(`INSERT INTO user_activity (organization_id, user_id) SELECT $1, 'user-' || i FROM generate_series(1, $2) i`, [
        organization,
        USERS_PER_ORGANIZATION,
      ]);
      await db.dataSource.query(
        `INSERT INTO user_windows (organization_id, user_id, revision, window_from, taken_at, first_seen, last_seen, events)
         SELECT $1, 'user-' || i, 1, $2, $3, 0, 0, '[]' FROM generate_series(1, $4) i`,
        [organization, from, until, USERS_PER_ORGANIZATION / 2],
      );
    }
    await db.dataSource.query('ANALYZE user_activity, user_windows');
  });

  afterAll(() => db?.close());

  const shardRun = [ORGANIZATIONS[1], from.toISOString(), until.toISOString(), SHARD.hashFrom, SHARD.hashTo];

  /** The indexes the planner reads for the statement, by name. */
  async function indexesRead(text: string, params: unknown[]): Promise<string[]> {
    const rows: Array<{ 'QUERY PLAN': unknown }> = await db.dataSource.query(`EXPLAIN (FORMAT JSON) ${text}`, params);
    return [...JSON.stringify(rows[0]['QUERY PLAN']).matchAll(/"Index Name":"([^"]+)"/g)].map((match) => match[1]);
  }

  it('reads the users to read off the activity rows of the shard only', async () => {
    expect(await indexesRead(USERS_TO_READ.text, shardRun)).toContain('user_activity_shard_idx');
  });

  it('counts and reads the shard kept windows off the windows of the shard only', async () => {
    expect(await indexesRead(ACTIVE_KEPT_USERS.text, shardRun)).toContain('user_windows_shard_idx');
    const cursorQuery = DECLARE_KEPT_WINDOWS.text.replace(/^\s*DECLARE kept_windows NO SCROLL CURSOR FOR/, '');
    expect(cursorQuery).not.toContain('DECLARE');
    expect(await indexesRead(cursorQuery, [...shardRun, null])).toContain('user_windows_shard_idx');
  });
});
