import type { QueryRunner } from 'typeorm';
import { MonthlyPartitionsService } from '@foresight/platform';
import {
  ERASABLE_EVENTS_OF,
  ERASABLE_REMAINING,
  EVENTS_WINDOW,
  EVENTS_WINDOWS,
  HAS_EVENTS,
  LATEST_EVENTS,
  SESSION_USER,
  TARGET_REACHED,
  TIMELINE,
} from '../../libs/events/src/users/user-events.sql';
import { openServiceDatabase, type ServiceDatabase } from '../support/service-database';

const ORGANIZATION = 'org_userreads0000001';
const OTHER_USERS = 200;
const EVENTS_PER_OTHER_USER = 100;
const VISITORS = 40;
const DAY = 86_400_000;
const until = new Date();
const from = new Date(until.getTime() - 30 * DAY);
const week = new Date(until.getTime() - 7 * DAY);
/**
 * Far fewer buffers than the organization's 40,000 events fill: what reading one user's rows, its
 * links and their events touches. A read that walks the organization's events touches 30,000 and more.
 */
const USER_READ_BUFFERS = 300;

/**
 * Every read of one user's events reads that user's rows and those of the anonymous ids linked to
 * them, whatever else the organization holds: here half its events are anonymous visitors', as on a
 * website, which made PostgreSQL expect a match soon in any walk of the organization's events in time
 * order. Two reads took such a walk for a user without links and never met a match: the window's
 * linked first and last sighting (min() and max() over `anonymous_id = ANY(ARRAY(...))`: 1.1 s and
 * 1.5 million buffers per window read off the events, for one user among 1.5 million events) and the
 * latest events (one ORDER BY over both branches). Counted in buffers, under both plans a prepared
 * statement may get.
 */
describe('reads of one user', () => {
  let db: ServiceDatabase;
  let runner: QueryRunner;

  beforeAll(async () => {
    db = await openServiceDatabase('user_reads');
    // The service's monthly partitions: a window spans two of them, as it does in production.
    await new MonthlyPartitionsService(db.sql).ensureAll();
    const sql = (text: string, params: unknown[] = []) => db.dataSource.query(text, params);
    await sql(`INSERT INTO organizations (id, name, region, retention_days) VALUES ($1, $1, 'eu', 400)`, [ORGANIZATION]);
    const spacingMs = Math.floor((20 * DAY) / (OTHER_USERS * EVENTS_PER_OTHER_USER));
    /** `count` events of the user or visitor `ids` gives (`n` counts them), `spacing` ms apart before `until`. */
    const insertEvents = (column: 'user_id' | 'anonymous_id', ids: string, count: number, spacing: number) =>
      sql(
        `INSERT INTO events (organization_id, message_id, event, ${column}, occurred_at, received_at)
         SELECT $1, gen_random_uuid()::text, 'click', ${ids}, $2::timestamptz - (n * $3::bigint) * interval '1 millisecond', now()
           FROM generate_series(1, $4) n`,
        [ORGANIZATION, until.toISOString(), spacing, count],
      );
    // The other users' events over 20 days, interleaved in time, and as many of visitors who never signed in.
    await insertEvents('user_id', `'other-' || (n % ${OTHER_USERS})`, OTHER_USERS * EVENTS_PER_OTHER_USER, spacingMs);
    await insertEvents('anonymous_id', `'visitor-' || (n % ${VISITORS})`, OTHER_USERS * EVENTS_PER_OTHER_USER, spacingMs);
    // 'alone': 10 events a day apart, no link. 'linked': the same, and 5 anonymous events before them, linked.
    await insertEvents('user_id', `'alone'`, 10, DAY);
    await insertEvents('user_id', `'linked'`, 10, DAY);
    await sql(
      `INSERT INTO events (organization_id, message_id, event, anonymous_id, occurred_at, received_at)
       SELECT $1, 'anonymous-' || n, 'screen_view', 'anon-linked', $2::timestamptz - (10 + n) * interval '1 day', now() FROM generate_series(1, 5) n`,
      [ORGANIZATION, until.toISOString()],
    );
    await sql(`INSERT INTO identities (organization_id, anonymous_id, user_id) VALUES ($1, 'anon-linked', 'linked')`, [ORGANIZATION]);
    await sql('ANALYZE events, identities');
    runner = db.dataSource.createQueryRunner();
    await runner.connect();
    await runner.query('SET jit = off');
  });

  afterAll(async () => {
    await runner?.release();
    await db?.close();
  });

  /** The statement prepared and run with its parameters under `mode`: the buffers it touched, and its rows. */
  async function read<Row>(text: string, params: string[], mode: 'force_custom_plan' | 'force_generic_plan'): Promise<{ buffers: number; rows: Row[] }> {
    await runner.query(`SET plan_cache_mode = ${mode}`);
    await runner.query(`PREPARE user_read AS ${text}`);
    try {
      const args = params.map((param) => `'${param}'`).join(', ');
      const [{ 'QUERY PLAN': plan }] = (await runner.query(`EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) EXECUTE user_read(${args})`)) as Array<{
        'QUERY PLAN': Array<{ Plan: Record<string, number> }>;
      }>;
      const rows = (await runner.query(`EXECUTE user_read(${args})`)) as Row[];
      return { buffers: plan[0].Plan['Shared Hit Blocks'] + plan[0].Plan['Shared Read Blocks'], rows };
    } finally {
      await runner.query('DEALLOCATE user_read');
    }
  }

  type Sightings = { first_seen: number; last_seen: number };
  const sightings = (row: Sightings) => [Number(row.first_seen), Number(row.last_seen)];
  const expected = { alone: [until.getTime() - 10 * DAY, until.getTime() - DAY], linked: [until.getTime() - 15 * DAY, until.getTime() - DAY] };
  const span = [from.toISOString(), until.toISOString()];

  for (const mode of ['force_custom_plan', 'force_generic_plan'] as const) {
    describe(mode, () => {
      it("reads one user's window off the user's rows and links only", async () => {
        for (const user of ['alone', 'linked'] as const) {
          const { buffers, rows } = await read<Sightings>(EVENTS_WINDOW.text, [ORGANIZATION, user, ...span], mode);
          expect(rows.map(sightings)).toEqual([expected[user]]);
          expect(buffers).toBeLessThan(USER_READ_BUFFERS);
        }
      });

      it("reads several users' windows off their rows and links only", async () => {
        const { buffers, rows } = await read<Sightings>(EVENTS_WINDOWS.text, [ORGANIZATION, '{alone,linked}', ...span], mode);
        expect(rows.map(sightings)).toEqual([expected.alone, expected.linked]);
        expect(buffers).toBeLessThan(2 * USER_READ_BUFFERS);
      });

      it("reads the user's latest events off the user's rows and links only", async () => {
        for (const user of ['alone', 'linked'] as const) {
          const { buffers, rows } = await read<{ event: string; occurred_at: Date }>(LATEST_EVENTS.text, [ORGANIZATION, user, '12'], mode);
          const times = user === 'alone' ? [1, 2, 3, 4, 5, 6, 7, 8, 9, 10] : [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12];
          expect(rows.map((row) => (until.getTime() - row.occurred_at.getTime()) / DAY)).toEqual(times);
          expect(buffers).toBeLessThan(USER_READ_BUFFERS);
        }
      });

      it.each([
        ['HAS_EVENTS', HAS_EVENTS.text, [ORGANIZATION, 'alone']],
        ['HAS_EVENTS of a user without events', HAS_EVENTS.text, [ORGANIZATION, 'nobody']],
        ['TIMELINE', TIMELINE.text, [ORGANIZATION, 'alone', '-infinity', 'infinity']],
        ['ERASABLE_EVENTS_OF', ERASABLE_EVENTS_OF.text, [ORGANIZATION, 'alone']],
        ['ERASABLE_REMAINING', ERASABLE_REMAINING.text, [ORGANIZATION, 'alone']],
        ['TARGET_REACHED', TARGET_REACHED.text, [ORGANIZATION, '{alone}', `{${week.toISOString()}}`, `{${until.toISOString()}}`, 'click']],
        ['SESSION_USER', SESSION_USER.text, [ORGANIZATION, 'session-1']],
      ])('%s reads the user\'s rows only', async (_name, text, params) => {
        expect((await read(text, params, mode)).buffers).toBeLessThan(USER_READ_BUFFERS);
      });
    });
  }
});
