import { isValidationUser } from '@foresight/models';
import { MonthlyPartitionsService } from '@foresight/platform';
import type { StoredUserId } from '../../libs/events/src/users/stored-user-id';
import { TrainingEvents } from '../../libs/events/src/users/training-events';
import { openServiceDatabase, type ServiceDatabase } from '../support/service-database';

const DAY = 86_400_000;
const ORGANIZATION = 'org_trainingusers0001';
/** The same user ids in another organization, each seen earlier: nothing of it may count. */
const OTHER = 'org_trainingusers0002';
const USERS = 50_000;
const now = Date.UTC(2026, 10, 21);
const from = new Date(now - 120 * DAY);
const until = new Date(now);

/**
 * Training's users as the database chooses them (TRAINING_USERS), on the real PostgreSQL: user-<i>
 * first seen i minutes after 100 days ago; 1,254 of them did the target inside the window, and a few
 * did it only before the window (which does not put them in that class). An anonymous id linked to
 * a user counts as that user, seen when the anonymous event was.
 */
describe('training users, sampled in the database', () => {
  let db: ServiceDatabase;
  let trainingEvents: TrainingEvents;

  beforeAll(async () => {
    db = await openServiceDatabase('training_users');
    await new MonthlyPartitionsService(db.sql).ensureAll();
    for (const id of [ORGANIZATION, OTHER]) await db.dataSource.query(`INSERT INTO organizations (id, name, region, retention_days) VALUES ($1, $1, 'eu', 400)`, [id]);
    const seen = (minutesAfter: string) => `to_timestamp(${(now - 100 * DAY) / 1000} + (${minutesAfter}) * 60)`;
    await db.dataSource.query(
      `INSERT INTO events (organization_id, message_id, event, user_id, occurred_at, received_at)
       SELECT $1, 'm' || i, 'view', 'user-' || i, ${seen('i')}, now() FROM generate_series(0, $2 - 1) i
       UNION ALL
       SELECT $1, 't' || i, 'checkout', 'user-' || i, ${seen('i + 60')}, now() FROM generate_series(0, $2 - 1) i WHERE i % 40 = 7 OR i < 4
       UNION ALL
       SELECT $1, 'old' || i, 'checkout', 'user-' || i, to_timestamp(${(now - 130 * DAY) / 1000}), now() FROM generate_series(10, 19) i
       UNION ALL
       SELECT $3, 'o' || i, 'view', 'user-' || i, to_timestamp(${(now - 300 * DAY) / 1000}), now() FROM generate_series(0, 999) i`,
      [ORGANIZATION, USERS, OTHER],
    );
    await db.dataSource.query(
      `INSERT INTO events (organization_id, message_id, event, anonymous_id, occurred_at, received_at) VALUES ($1, 'anon', 'view', 'anon-5', $2, now())`,
      [ORGANIZATION, new Date(now - 110 * DAY)],
    );
    await db.dataSource.query(`INSERT INTO identities (organization_id, anonymous_id, user_id) VALUES ($1, 'anon-5', 'user-5')`, [ORGANIZATION]);
    trainingEvents = new TrainingEvents(db.sql);
  });

  afterAll(async () => {
    await db?.close();
  });

  const didTarget = (user: string) => {
    const i = Number(user.slice('user-'.length));
    return i % 40 === 7 || i < 4;
  };

  it('reads every user up to the limit, each with when they were first seen (linked anonymous events included)', async () => {
    const read = await trainingEvents.trainingUsers(ORGANIZATION, 'checkout', from, until, 60_000);
    expect(read).toMatchObject({ users: USERS, sampled: false });
    expect(read.firstSeen.size).toBe(USERS);
    expect(read.firstSeen.get('user-3' as StoredUserId)).toBe(now - 100 * DAY + 3 * 60_000);
    expect(read.firstSeen.get('user-5' as StoredUserId)).toBe(now - 110 * DAY);
    // user-10 to user-19 did the target only before the window: seen then, whatever their class.
    expect(read.firstSeen.get('user-12' as StoredUserId)).toBe(now - 130 * DAY);
  });

  it('beyond the limit reads exactly the same share of each class, so the target keeps its prevalence, and the same users on every run', async () => {
    const read = await trainingEvents.trainingUsers(ORGANIZATION, 'checkout', from, until, 5_000);
    expect(read).toMatchObject({ users: USERS, sampled: true });
    const kept = [...read.firstSeen.keys()];
    // 1,254 users did it in the window: round(0.1 * 1,254) = 125 of them, round(0.1 * 48,746) = 4,875 of the others.
    expect(kept.filter(didTarget)).toHaveLength(125);
    expect(kept.filter((user) => !didTarget(user))).toHaveLength(4875);
    expect(read.firstSeen.get(kept[0])).toBe(now - 100 * DAY + Number(kept[0].slice('user-'.length)) * 60_000);
    // Spread over the whole population, not its first or last ids.
    const ids = kept.map((user) => Number(user.slice('user-'.length)));
    expect(ids.filter((i) => i < USERS / 2).length / ids.length).toBeCloseTo(0.5, 1);
    // The sample's coin and the validation split's are different coins: the sample keeps the 30/70 split.
    expect(kept.filter(isValidationUser).length / kept.length).toBeCloseTo(0.3, 1);
    const again = await trainingEvents.trainingUsers(ORGANIZATION, 'checkout', from, until, 5_000);
    expect(new Set(again.firstSeen.keys())).toEqual(new Set(kept));
  });

  it('counts only the organization asked for', async () => {
    const other = await trainingEvents.trainingUsers(OTHER, 'checkout', from, until, 60_000);
    expect(other.users).toBe(1000);
    expect(other.firstSeen.get('user-3' as StoredUserId)).toBe(now - 300 * DAY);
    expect(await trainingEvents.trainingUsers('org_nobody', 'checkout', from, until, 60_000)).toEqual({ users: 0, sampled: false, firstSeen: new Map() });
  });
});
