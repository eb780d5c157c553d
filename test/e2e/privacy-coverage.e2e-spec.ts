import type { DynamicModule, INestApplicationContext } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { type PersonalDataStore, type Runtime, startRuntime } from '@foresight/platform';
import { PersonalDataStoresService, RetentionService } from '@foresight/privacy';
import { ApiModule } from '../../apps/api/src/api.module';
import { WorkerModule } from '../../apps/worker/src/worker.module';
import { freePort } from '../support/ports';
import { TestSuite } from '../support/suite';
import { userIdColumns } from '../support/user-id-columns';

/**
 * Every column that holds a user id must belong to a personal-data store, in both processes that
 * erase (the API answering DELETE /v1/users, the worker sweeping): otherwise export and erasure
 * silently miss it. The schema is the migrated one; the stores are those the real compositions discover.
 */
describe('personal-data store coverage', () => {
  let suite: TestSuite;

  beforeAll(async () => {
    suite = await TestSuite.create('privacy_coverage');
  });

  afterAll(async () => {
    await suite?.destroy();
  });

  /** `table.column` of every user-id-like column of the schema. */
  async function userIdColumnNames(): Promise<string[]> {
    return (await userIdColumns(suite)).map(({ table, column }) => `${table}.${column}`);
  }

  /** Runs `use` in a process composition (its providers, no HTTP server). */
  async function withApp<T>(compose: (runtime: Runtime) => DynamicModule, use: (app: INestApplicationContext) => Promise<T>): Promise<T> {
    const saved = { ...process.env };
    Object.assign(process.env, suite.env, { WORKER_MODE: 'off', LOG_LEVEL: 'silent', METRICS_PORT: String(await freePort()) });
    const runtime = await startRuntime('api');
    process.env = saved;
    const app = await NestFactory.createApplicationContext(compose(runtime), { logger: false, abortOnError: false });
    try {
      return await use(app);
    } finally {
      await app.close();
      await runtime.stop();
    }
  }

  /** Runs `use` with the personal-data stores a process composition discovers. */
  function withStores<T>(compose: (runtime: Runtime) => DynamicModule, use: (stores: readonly PersonalDataStore[]) => Promise<T>): Promise<T> {
    return withApp(compose, (app) => use(app.get(PersonalDataStoresService).all()));
  }

  /** A model of the organization with two audiences, each holding `members` (user id, days since the prediction it rests on). */
  async function audiencesWith(organizationId: string, prefix: string, members: Array<[userId: string, daysAgo: number]>): Promise<void> {
    const modelId = `mdl_${prefix.padEnd(16, '0')}`;
    await suite.sql(
      `INSERT INTO models (id, organization_id, name, target_event, horizon_days, algorithm, labels) VALUES ($2, $1, 'coverage_model', 'checkout', 7, 'logistic', ARRAY['unlikely', 'likely'])`,
      [organizationId, modelId],
    );
    for (const audienceId of [`aud_${prefix.padEnd(15, '0')}1`, `aud_${prefix.padEnd(15, '0')}2`]) {
      await suite.sql(`INSERT INTO audiences (organization_id, id, name, model_id, label, min_confidence) VALUES ($1, $2, 'coverage', $3, 'likely', 0.5)`, [organizationId, audienceId, modelId]);
      for (const [userId, daysAgo] of members) {
        await suite.sql(
          `INSERT INTO audience_members (organization_id, audience_id, user_id, confidence, scored_at, since, entered_run)
           VALUES ($1, $2, $3, 0.9, now() - make_interval(days => $4::int), now() - make_interval(days => $4::int), 'scr_1')`,
          [organizationId, audienceId, userId, daysAgo],
        );
      }
    }
  }

  /** The columns the stores of a process composition declare. */
  function coveredBy(compose: (runtime: Runtime) => DynamicModule): Promise<Set<string>> {
    return withStores(compose, async (stores) => new Set(stores.flatMap((store) => store.userIdColumns.map(({ table, column }) => `${table}.${column}`))));
  }

  it.each([
    ['API', (runtime: Runtime) => ApiModule.register(runtime)],
    ['worker', (runtime: Runtime) => WorkerModule.register(runtime)],
  ])('every user id column of the schema is covered by a store of the %s', async (_process, compose) => {
    const columns = await userIdColumnNames();
    expect(columns).toEqual(expect.arrayContaining(['events.user_id', 'events.anonymous_id', 'identities.user_id', 'predictions.user_id', 'audience_members.user_id']));
    const covered = await coveredBy(compose);
    expect(columns.filter((column) => !covered.has(column))).toEqual([]);
  });

  it('notices a table nobody covers', async () => {
    await suite.sql(`CREATE TABLE scratch_notes (id text PRIMARY KEY, author_user_id text)`);
    try {
      const covered = await coveredBy((runtime) => ApiModule.register(runtime));
      expect((await userIdColumnNames()).filter((column) => !covered.has(column))).toEqual(['scratch_notes.author_user_id']);
    } finally {
      await suite.sql(`DROP TABLE scratch_notes`);
    }
  });

  it('erases a user from every audience at once, leaving the other members', async () => {
    const { organization } = await suite.createOrganization('coverage_audiences');
    await audiencesWith(organization.id, 'coverage', [['erased-user', 0], ['kept-user', 0]]);
    const erasure = await withStores(
      (runtime) => ApiModule.register(runtime),
      async (stores) => {
        const store = stores.find((candidate) => candidate.userIdColumns.some(({ table }) => table === 'audience_members'));
        if (!store) throw new Error('no store covers audience_members');
        const exported = await store.export(organization.id, 'erased-user');
        return { exported: exported.length, erased: await store.erase(organization.id, 'erased-user'), remaining: await store.remaining(organization.id, 'erased-user') };
      },
    );
    expect(erasure).toEqual({ exported: 2, erased: 2, remaining: 0 });
    expect(await suite.sql(`SELECT audience_id, user_id FROM audience_members WHERE organization_id = $1 ORDER BY audience_id`, [organization.id])).toEqual([
      { audience_id: 'aud_coverage00000001', user_id: 'kept-user' },
      { audience_id: 'aud_coverage00000002', user_id: 'kept-user' },
    ]);
  });

  it("retention (the worker's daily job) removes the memberships resting on predictions older than the organization's retention, keeping the rest", async () => {
    const { organization } = await suite.createOrganization('coverage_retention');
    await suite.sql(`UPDATE organizations SET retention_days = 30 WHERE id = $1`, [organization.id]);
    await audiencesWith(organization.id, 'retention', [['expired-user', 40], ['recent-user', 1]]);
    await withApp((runtime) => WorkerModule.register(runtime), (app) => app.get(RetentionService).run());
    expect(await suite.sql(`SELECT audience_id, user_id FROM audience_members WHERE organization_id = $1 ORDER BY audience_id`, [organization.id])).toEqual([
      { audience_id: 'aud_retention0000001', user_id: 'recent-user' },
      { audience_id: 'aud_retention0000002', user_id: 'recent-user' },
    ]);
  });
});
