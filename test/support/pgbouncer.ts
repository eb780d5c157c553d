import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from 'pg';
import { eventually } from './eventually';
import { freePort } from './ports';
import { postgresUser, stopAndRemove, tempDirFor } from './postgres-user';
import { ADMIN_DATABASE_URL } from './services';

const PGBOUNCER = process.env.TEST_PGBOUNCER ?? '/usr/sbin/pgbouncer';

export interface PgBouncerOptions {
  /** Server connections per (database, user): small, so the API's sessions really share them. */
  poolSize?: number;
  /** Seconds an idle server connection is kept, and the longest a server connection lives. */
  serverIdleTimeoutSeconds?: number;
  serverLifetimeSeconds?: number;
  /** The PostgreSQL it pools (its host and port; a streaming replica's, say): the test PostgreSQL by default. */
  target?: string;
}

/**
 * A real PgBouncer in transaction pooling mode in front of the test PostgreSQL (or `target`), on a
 * free port. Any database name is passed through (a wildcard entry), so a suite's own database is
 * reached by swapping the port of its URL (`urlFor`). Server connections are few and recycled within seconds:
 * one client's statements land on different server sessions, and sessions other clients used.
 */
export class PgBouncer {
  private constructor(
    readonly port: number,
    private readonly child: ChildProcess,
    private readonly dir: string,
    private readonly log: () => string,
  ) {}

  static async start(options: PgBouncerOptions = {}): Promise<PgBouncer> {
    if (!existsSync(PGBOUNCER)) throw new Error(`${PGBOUNCER} is missing: install PgBouncer (apt-get install pgbouncer), or point TEST_PGBOUNCER at it.`);
    const target = new URL(options.target ?? ADMIN_DATABASE_URL);
    const user = postgresUser();
    const dir = tempDirFor(user, 'foresight-pgbouncer-');
    const port = await freePort();
    // With auth_type trust PgBouncer still only admits users it knows: the test PostgreSQL's user, any password.
    writeFileSync(join(dir, 'userlist.txt'), `"${decodeURIComponent(target.username)}" ""\n`);
    writeFileSync(
      join(dir, 'pgbouncer.ini'),
      [
        '[databases]',
        `* = host=${target.hostname} port=${target.port || 5432}`,
        '[pgbouncer]',
        'listen_addr = 127.0.0.1',
        `listen_port = ${port}`,
        'unix_socket_dir =',
        'auth_type = trust',
        `auth_file = ${join(dir, 'userlist.txt')}`,
        'pool_mode = transaction',
        `default_pool_size = ${options.poolSize ?? 4}`,
        'max_client_conn = 500',
        `server_idle_timeout = ${options.serverIdleTimeoutSeconds ?? 2}`,
        `server_lifetime = ${options.serverLifetimeSeconds ?? 5}`,
        // node-postgres and libpq send these at start-up; PgBouncer refuses start-up parameters it does not know.
        'ignore_startup_parameters = extra_float_digits',
        'log_connections = 0',
        'log_disconnections = 0',
      ].join('\n'),
    );
    // Foreground (no -d), stopped with the suite; as root PgBouncer refuses to start, so it runs as postgres.
    const child = spawn(PGBOUNCER, [join(dir, 'pgbouncer.ini')], { ...user, cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
    const chunks: string[] = [];
    child.stdout?.on('data', (d: Buffer) => chunks.push(d.toString()));
    child.stderr?.on('data', (d: Buffer) => chunks.push(d.toString()));
    const bouncer = new PgBouncer(port, child, dir, () => chunks.join(''));
    await eventually(
      'PgBouncer to accept connections',
      async () => {
        if (child.exitCode !== null) throw new Error(`pgbouncer exited with ${child.exitCode}:\n${bouncer.log()}`);
        const pg = new Client({ connectionString: bouncer.urlFor(target.toString()) });
        await pg.connect();
        await pg.query('SELECT 1').finally(() => pg.end());
        return true;
      },
      15_000,
    ).catch(async (error: unknown) => {
      await bouncer.stop();
      throw error;
    });
    return bouncer;
  }

  /** The process id, for CPU accounting. */
  get pid(): number | undefined {
    return this.child.pid;
  }

  /** The same database and user as `databaseUrl`, through this PgBouncer. */
  urlFor(databaseUrl: string): string {
    const url = new URL(databaseUrl);
    url.hostname = '127.0.0.1';
    url.port = String(this.port);
    return url.toString();
  }

  /** What PgBouncer logged (warnings and errors), for failure messages. */
  output(): string {
    return this.log();
  }

  async stop(): Promise<void> {
    // SIGTERM: immediate shutdown, without waiting for clients to disconnect.
    await stopAndRemove(this.child, 'SIGTERM', this.dir);
  }
}
