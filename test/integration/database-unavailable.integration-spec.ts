import { createServer, type Server, type Socket } from 'node:net';
import { Pool } from 'pg';
import { isDatabasePoolExhausted, isInfrastructureUnavailable } from '@foresight/platform';
import { freePort } from '../support/ports';
import { ADMIN_DATABASE_URL } from '../support/services';

/** What a real pg pool throws when a connection cannot be had, and how it is told apart. */
async function connectError(pool: Pool): Promise<Error> {
  try {
    (await pool.connect()).release();
  } catch (error) {
    return error as Error;
  } finally {
    await pool.end();
  }
  throw new Error('connected');
}

describe('telling a busy database pool from an unreachable database', () => {
  it('every connection of the pool checked out past the wait: pool exhausted (and unavailable)', async () => {
    const pool = new Pool({ connectionString: ADMIN_DATABASE_URL, max: 1, connectionTimeoutMillis: 300 });
    const held = await pool.connect();
    let error: unknown;
    try {
      await pool.connect();
    } catch (caught) {
      error = caught;
    } finally {
      held.release();
      await pool.end();
    }
    expect({ exhausted: isDatabasePoolExhausted(error), unavailable: isInfrastructureUnavailable(error) }).toEqual({ exhausted: true, unavailable: true });
  });

  it('nothing listening: unreachable, not exhausted', async () => {
    const error = await connectError(new Pool({ host: '127.0.0.1', port: await freePort(), user: 'postgres', max: 1, connectionTimeoutMillis: 2_000 }));
    expect({ exhausted: isDatabasePoolExhausted(error), unavailable: isInfrastructureUnavailable(error) }).toEqual({ exhausted: false, unavailable: true });
  });

  it('a server that accepts and never answers (a stopped postmaster): unreachable, not exhausted', async () => {
    const sockets: Socket[] = [];
    const silent: Server = createServer((socket) => sockets.push(socket));
    const port = await freePort();
    await new Promise<void>((resolve) => silent.listen(port, '127.0.0.1', resolve));
    try {
      const error = await connectError(new Pool({ host: '127.0.0.1', port, user: 'postgres', max: 1, connectionTimeoutMillis: 300 }));
      expect({ exhausted: isDatabasePoolExhausted(error), unavailable: isInfrastructureUnavailable(error) }).toEqual({ exhausted: false, unavailable: true });
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => silent.close(resolve));
    }
  });
});
