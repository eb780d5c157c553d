import type { Pool, PoolClient } from 'pg';
import type { Logger } from '../../logging/logger';

/**
 * pg-pool listens for a client's 'error' only while the client is idle: a connection lost while it is
 * checked out (PostgreSQL crash-restarting in the middle of a transaction) emits 'error' with no
 * listener, and that ends the process. Every client of the pool gets a listener for its whole life
 * instead: the query in flight fails with the error, and the pool discards the broken client on release.
 */
export function keepClientErrorsHandled(pool: Pool, logger: Logger, what: string): void {
  const handle = (client: PoolClient) => {
    client.on('error', (error) => logger.warn({ err: error }, `a connection to ${what} in use was lost; its query fails and the connection is discarded`));
  };
  pool.on('connect', handle);
  // Clients the pool made before this call (the data source's first connection): pg-pool keeps them here.
  for (const client of (pool as unknown as { _clients?: PoolClient[] })._clients ?? []) handle(client);
}
