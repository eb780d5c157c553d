import type { DynamicModule } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { type PersonalDataStore, type Runtime, startRuntime } from '@foresight/platform';
import { PersonalDataStoresService } from '@foresight/privacy';
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

  /** Runs `use` with the personal-data stores a process composition discovers. */
  async function withStores<T>(compose: (runtime: Runtime) => DynamicModule, use: (stores: readonly PersonalDataStore[]) => Promise<T>): Promise<T> {
    const saved = { ...process.env };
    Object.assign(process.env, suite.env, { WORKER_MODE: 'off', LOG_LEVEL: 'silent', METRICS_PORT: String(await freePort()) });
    const runtime = await startRuntime('api');
    process.env = saved;
    const app = await NestFactory.createApplicationContext(compose(runtime), { logger: false, abortOnError: false });
    try {
      return await use(app.get(PersonalDataStoresService).all());
    } finally {
      await app.close();
      await runtime.stop();
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
    await suite.sql(
      `INSERT INTO models (id, organization_id, name, target_event, horizon_days, algorithm, labels) VALUES ('mdl_coverage00000000', $1, 'coverage_model', 'checkout', 7, 'logistic', ARRAY['unlikely', 'likely'])`,
      [organization.id],
    );
    for (const audienceId of ['aud_coverage00000001', 'aud_coverage00000002']) {
      await suite.sql(`INSERT INTO audiences (organization_id, id, name, model_id, label, min_confidence) VALUES ($1, $2, 'coverage', 'mdl_coverage00000000', 'likely', 0.5)`, [organization.id, audienceId]);
      await suite.sql(
        `INSERT INTO audience_members (organization_id, audience_id, user_id, confidence, scored_at, since, entered_run)
         VALUES ($1, $2, 'erased-user', 0.9, now(), now(), 'scr_1'), ($1, $2, 'kept-user', 0.8, now(), now(), 'scr_1')`,
        [organization.id, audienceId],
      );
    }
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
    expect(await suite.sql(`SELECT audience_id, user_id FROM audience_members ORDER BY audience_id`)).toEqual([
      { audience_id: 'aud_coverage00000001', user_id: 'kept-user' },
      { audience_id: 'aud_coverage00000002', user_id: 'kept-user' },
    ]);
  });
});
