import type { DynamicModule } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { type Runtime, startRuntime } from '@foresight/platform';
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

  /** The columns the stores of a process composition declare. */
  async function coveredBy(compose: (runtime: Runtime) => DynamicModule): Promise<Set<string>> {
    const saved = { ...process.env };
    Object.assign(process.env, suite.env, { WORKER_MODE: 'off', LOG_LEVEL: 'silent', METRICS_PORT: String(await freePort()) });
    const runtime = await startRuntime('api');
    process.env = saved;
    const app = await NestFactory.createApplicationContext(compose(runtime), { logger: false, abortOnError: false });
    try {
      return new Set(app.get(PersonalDataStoresService).all().flatMap((store) => store.userIdColumns.map(({ table, column }) => `${table}.${column}`)));
    } finally {
      await app.close();
      await runtime.stop();
    }
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
});
