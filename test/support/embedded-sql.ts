import { Client } from 'pg';
import { EMBEDDED_SOCKET_PORT } from '../../libs/platform/src/database/embedded-postgres';

/** SQL on the embedded database of `dataDir` through the running service's socket, as the CLI reaches it. */
export async function embeddedSql<T>(dataDir: string, text: string, params: unknown[] = []): Promise<T[]> {
  const pg = new Client({ host: dataDir, port: EMBEDDED_SOCKET_PORT, user: 'postgres', database: 'postgres' });
  await pg.connect();
  try {
    return (await pg.query(text, params)).rows as T[];
  } finally {
    await pg.end();
  }
}
