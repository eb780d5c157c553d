import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { Client } from 'pg';
import { cliJson, type RunningProcess, startApi } from './processes';
import { ADMIN_DATABASE_URL, REDIS_URL } from './services';

export interface OrganizationWithToken {
  organization: { id: string; name: string };
  token: { id: string; secret: string };
}

/**
 * One e2e suite's private world: its own Postgres database (migrated by the real CLI) and its own
 * Redis key prefix, so suites running in parallel never see each other's data.
 */
export class TestSuite {
  readonly env: Record<string, string>;
  private readonly databaseName: string;

  private constructor(readonly name: string) {
    const suffix = randomBytes(4).toString('hex');
    this.databaseName = `foresight_e2e_${name}_${suffix}`;
    const url = new URL(ADMIN_DATABASE_URL);
    url.pathname = `/${this.databaseName}`;
    this.env = {
      DATABASE_URL: url.toString(),
      REDIS_URL,
      REDIS_PREFIX: `e2e:${name}:${suffix}:`,
      TOKEN_PEPPER: randomBytes(32).toString('hex'),
      ENCRYPTION_KEY: randomBytes(32).toString('hex'),
    };
  }

  /** `migrate: false` leaves the database empty, for a suite that builds an earlier schema itself. */
  static async create(name: string, options: { migrate?: boolean } = {}): Promise<TestSuite> {
    const suite = new TestSuite(name);
    await asAdmin((pg) => pg.query(`CREATE DATABASE ${suite.databaseName}`));
    if (options.migrate ?? true) await cliJson(suite.env, ['migrate']);
    return suite;
  }

  createOrganization(name: string, extra: string[] = []): Promise<OrganizationWithToken> {
    return cliJson<OrganizationWithToken>(this.env, ['org', 'create', '--name', name, ...extra]);
  }

  /** Direct SQL against the suite's database, for arranging states the API cannot reach (expired tokens). */
  async sql<T = Record<string, unknown>>(text: string, params: unknown[] = []): Promise<T[]> {
    const pg = new Client({ connectionString: this.env.DATABASE_URL });
    await pg.connect();
    try {
      return (await pg.query(text, params)).rows as T[];
    } finally {
      await pg.end();
    }
  }

  async destroy(): Promise<void> {
    await asAdmin((pg) => pg.query(`DROP DATABASE IF EXISTS ${this.databaseName} WITH (FORCE)`));
    await deleteRedisKeys(this.env.REDIS_PREFIX);
  }
}

/** Work on the server's admin database (creating and dropping the suites' own databases). */
export async function asAdmin(work: (pg: Client) => Promise<unknown>): Promise<void> {
  const pg = new Client({ connectionString: ADMIN_DATABASE_URL });
  await pg.connect();
  try {
    await work(pg);
  } finally {
    await pg.end();
  }
}

/** Removes every Redis key a suite wrote (all of them start with its prefix). */
export async function deleteRedisKeys(prefix: string): Promise<void> {
  const redis = new Redis(REDIS_URL);
  try {
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
      if (keys.length > 0) await redis.del(...keys);
      cursor = next;
    } while (cursor !== '0');
  } finally {
    redis.disconnect();
  }
}

export interface ApiSuite {
  readonly suite: TestSuite;
  readonly org: OrganizationWithToken;
  readonly api: RunningProcess;
}

/**
 * Registers beforeAll/afterAll for the common shape: a suite, one organization, one API process.
 * `organizationArgs` go to `organization create` (e.g. a rate limit that a large demo seed leaves room under).
 */
export function withApiSuite(name: string, organizationArgs: readonly string[] = []): ApiSuite {
  const context = {} as { suite: TestSuite; org: OrganizationWithToken; api: RunningProcess };
  beforeAll(async () => {
    context.suite = await TestSuite.create(name);
    context.org = await context.suite.createOrganization(name, [...organizationArgs]);
    context.api = await startApi(context.suite.env);
  });
  afterAll(async () => {
    await context.api?.stop();
    await context.suite?.destroy();
  });
  return context;
}
