import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { Client } from 'pg';
import { ADMIN_DATABASE_URL, REDIS_URL } from './services';

/** Fails fast, with the fix in the message, when e2e prerequisites are missing. */
export default async function globalSetup(): Promise<void> {
  if (!existsSync(join(__dirname, '..', '..', 'dist', 'apps', 'api', 'src', 'main.js'))) {
    throw new Error('dist/ is missing: run `npm test` (it builds first) or `npm run build`.');
  }
  const pg = new Client({ connectionString: ADMIN_DATABASE_URL });
  await pg.connect().catch((error: Error) => {
    throw new Error(`e2e tests need PostgreSQL at ${ADMIN_DATABASE_URL}: ${error.message}`);
  });
  await pg.end();
  const redis = new Redis(REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 0 });
  await redis.connect().catch((error: Error) => {
    throw new Error(`e2e tests need Redis at ${REDIS_URL}: ${error.message}`);
  });
  redis.disconnect();
}
