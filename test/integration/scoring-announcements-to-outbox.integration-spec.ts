import { randomBytes } from 'node:crypto';
import { Queue } from 'bullmq';
import { DataSource } from 'typeorm';
import { type Announcement, applyMigrations, type DomainEvent, DomainEventsService, loadConfig, MIGRATIONS, QUEUES, SqlExecutor } from '@foresight/platform';
import { recordingLogger } from '../support/recording-logger';
import { ADMIN_DATABASE_URL, REDIS_URL } from '../support/services';
import { asAdmin } from '../support/suite';

const ORGANIZATION = 'org_announcementsmove';
const LAST_EARLIER_MIGRATION = 'DomainEventOutbox1765100000000';

interface OutboxRow {
  event_id: string;
  user_id: string | null;
  event: DomainEvent<'prediction.updated'>;
}

/** A chunk's announcements as bulk scoring names them (run, model, user hash) and the earlier release stored them. */
const ANNOUNCED = [
  { runId: 'scr_a', shard: 0, dedupeKey: 'scr_a/mdl_a/12345', userId: 'user-1', label: 'likely' },
  { runId: 'scr_a', shard: 1, dedupeKey: 'scr_a/mdl_a/-678', userId: 'user-2', label: 'very_likely' },
  { runId: 'scr_b', shard: 0, dedupeKey: 'scr_b/mdl_a/999', userId: 'user-3', label: 'likely' },
];
const announcement = ({ dedupeKey, userId, label }: (typeof ANNOUNCED)[number]): Announcement<'prediction.updated'> => ({
  dedupeKey,
  data: { userId, model: 'pricing_view_7d', modelId: 'mdl_a', version: 3, label, previousLabel: 'unlikely', confidence: 0.81 },
});

/**
 * ScoringAnnouncementsToOutbox1765200000000 on a database an earlier release wrote: the bulk scoring
 * announcements it committed and did not publish (scoring_announcements) are in the domain events'
 * outbox afterwards as bulk scoring stages them today (same event id, same event), an event the
 * earlier release had already stored there keeps its row, and scoring_announcements is gone.
 */
describe('moving pending bulk scoring announcements into the domain events outbox', () => {
  const databaseName = `foresight_it_announcements_move_${randomBytes(4).toString('hex')}`;
  const url = new URL(ADMIN_DATABASE_URL);
  url.pathname = `/${databaseName}`;
  const config = loadConfig({ DATABASE_URL: url.toString(), REDIS_URL, TOKEN_PEPPER: randomBytes(32).toString('hex'), ENCRYPTION_KEY: randomBytes(32).toString('hex') });
  const prefix = `it-announcements-move-${randomBytes(4).toString('hex')}`;
  const opened: Array<{ dataSource: DataSource; sql: SqlExecutor }> = [];
  let queue: Queue<DomainEvent>;

  /** The database at `migrations`, with the outbox's service on it (whose queue this test never fills). */
  async function open(migrations: ReadonlyArray<(typeof MIGRATIONS)[number]>): Promise<{ dataSource: DataSource; domainEvents: DomainEventsService; sql: SqlExecutor; applied: string[] }> {
    const dataSource = await new DataSource({ type: 'postgres', url: url.toString(), migrations: [...migrations], migrationsTableName: 'schema_migrations' }).initialize();
    const sql = new SqlExecutor(dataSource, config, recordingLogger().logger);
    opened.push({ dataSource, sql });
    const applied = await applyMigrations(dataSource);
    return { dataSource, domainEvents: new DomainEventsService(queue, sql), sql, applied };
  }

  /** Bulk scoring's chunk transaction, reduced to its announcements. */
  const staged = ({ dataSource, domainEvents, sql }: { dataSource: DataSource; domainEvents: DomainEventsService; sql: SqlExecutor }, announced: typeof ANNOUNCED) =>
    dataSource.transaction((manager) => domainEvents.stage(sql.within(manager), ORGANIZATION, 'prediction.updated', announced.map(announcement)));

  const outbox = async (dataSource: DataSource): Promise<OutboxRow[]> =>
    dataSource.query(`SELECT event_id, user_id, event FROM domain_event_outbox WHERE organization_id = $1 ORDER BY user_id`, [ORGANIZATION]);

  beforeAll(async () => {
    await asAdmin((pg) => pg.query(`CREATE DATABASE ${databaseName}`));
    queue = new Queue<DomainEvent>(QUEUES.domainEvents, { connection: { url: REDIS_URL }, prefix });
  });

  afterAll(async () => {
    for (const { dataSource, sql } of opened) {
      await sql.onApplicationShutdown();
      if (dataSource.isInitialized) await dataSource.destroy();
    }
    await queue?.obliterate({ force: true });
    await queue?.close();
    await asAdmin((pg) => pg.query(`DROP DATABASE IF EXISTS ${databaseName} WITH (FORCE)`));
  });

  it('stores each pending announcement in the outbox under the event id and as the event bulk scoring stages, keeps one already there, and drops the table', async () => {
    const earlier = MIGRATIONS.slice(0, MIGRATIONS.findIndex((migration) => migration.name === LAST_EARLIER_MIGRATION) + 1);
    const before = await open(earlier);
    expect(await before.dataSource.query(`SELECT to_regclass('scoring_announcements')::text AS pending`)).toEqual([{ pending: 'scoring_announcements' }]);
    await before.dataSource.query(`INSERT INTO organizations (id, name, region) VALUES ($1, 'A', 'eu')`, [ORGANIZATION]);
    // As the earlier release's chunks stored them: the event's data without the user, who is in user_id.
    for (const announced of ANNOUNCED) {
      const { userId, ...data } = announcement(announced).data;
      await before.dataSource.query(`INSERT INTO scoring_announcements (organization_id, run_id, shard, event_key, user_id, data) VALUES ($1, $2, $3, $4, $5, $6)`, [
        ORGANIZATION, announced.runId, announced.shard, announced.dedupeKey, userId, JSON.stringify(data),
      ]);
    }
    // The earlier release published user-3's (into the outbox) and was killed before removing its scoring_announcements row.
    const [alreadyOut] = await staged(before, ANNOUNCED.slice(2));
    await before.dataSource.query(`UPDATE domain_event_outbox SET created_at = now() - interval '1 hour'`);
    const [{ published }] = await before.dataSource.query<Array<{ published: Date }>>(`SELECT created_at AS published FROM domain_event_outbox`);
    await before.dataSource.destroy();

    const after = await open(MIGRATIONS);
    expect(after.applied).toEqual(['ScoringAnnouncementsToOutbox1765200000000']);
    expect(await after.dataSource.query(`SELECT to_regclass('scoring_announcements')::text AS pending`)).toEqual([{ pending: null }]);
    const moved = await outbox(after.dataSource);
    expect(moved.map((row) => row.user_id)).toEqual(['user-1', 'user-2', 'user-3']);
    expect(moved[2].event).toEqual(alreadyOut);
    expect(await after.dataSource.query(`SELECT created_at AS published FROM domain_event_outbox WHERE event_id = $1`, [alreadyOut.id])).toEqual([{ published }]);

    // Today's bulk scoring staging the same announcements: the same ids and events, and the rows stay as they are.
    const today = await staged(after, ANNOUNCED);
    expect(moved.map((row) => row.event_id)).toEqual(today.map((event) => event.id));
    const withoutTime = ({ createdAt, ...event }: DomainEvent) => (Number.isNaN(Date.parse(createdAt)) ? { ...event, createdAt } : event);
    expect(moved.map((row) => withoutTime(row.event))).toEqual(today.map(withoutTime));
    expect(await outbox(after.dataSource)).toEqual(moved);
  });
});
