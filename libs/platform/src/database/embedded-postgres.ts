import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';

/** pg connects to `<dir>/.s.PGSQL.<port>`; this port only names the socket file. */
export const EMBEDDED_SOCKET_PORT = 5432;

export interface EmbeddedPostgres {
  /** Directory holding the unix socket; pass as `host` to the pg driver. */
  readonly socketDir: string;
  /** True when this process owns the database (it runs the socket server). */
  readonly owner: boolean;
  stop(): Promise<void>;
}

/**
 * PGlite allows one process per data directory. The first process (normally the API)
 * opens it and serves it on a unix socket; any other process (the CLI while the service
 * runs) connects to that socket with the ordinary pg driver. Same SQL, same migrations.
 */
export async function openEmbeddedPostgres(dataDir: string): Promise<EmbeddedPostgres> {
  mkdirSync(dataDir, { recursive: true });
  const pidFile = join(dataDir, 'pglite.pid');
  const socketDir = dataDir;
  const socketPath = join(socketDir, `.s.PGSQL.${EMBEDDED_SOCKET_PORT}`);
  const ownerPid = readOwnerPid(pidFile);
  if (ownerPid !== undefined && ownerPid !== process.pid && isAlive(ownerPid)) {
    return { socketDir, owner: false, stop: async () => undefined };
  }
  rmSync(socketPath, { force: true });
  writeFileSync(pidFile, String(process.pid));
  const db = await PGlite.create({ dataDir: join(dataDir, 'pgdata') });
  // Several pg connections are multiplexed; the server runs one transaction at a time.
  const server = new PGLiteSocketServer({ db, path: socketPath, maxConnections: 32 });
  await server.start();
  return {
    socketDir,
    owner: true,
    stop: async () => {
      await server.stop();
      await db.close();
      rmSync(pidFile, { force: true });
    },
  };
}

function readOwnerPid(pidFile: string): number | undefined {
  if (!existsSync(pidFile)) return undefined;
  const pid = Number.parseInt(readFileSync(pidFile, 'utf8'), 10);
  return Number.isInteger(pid) && pid > 0 ? pid : undefined;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
