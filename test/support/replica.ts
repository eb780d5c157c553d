import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { existsSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Client } from 'pg';
import { eventually } from './eventually';
import { freePort } from './ports';
import { postgresUser, stopAndRemove, tempDirFor } from './postgres-user';
import { ADMIN_DATABASE_URL } from './services';

/** `<application_name|database> ` before every line the replica logs. */
const LOG_PREFIX = '<%a|%d> ';
const LOG_ENTRY = /^<([^|>]*)\|([^>]*)> LOG: {2}(?:statement|execute [^:]*): (.*)$/s;

/** Settings a hot standby must not set lower than its primary, or it refuses to start. */
const AT_LEAST_PRIMARY = ['max_connections', 'max_worker_processes', 'max_wal_senders', 'max_prepared_transactions', 'max_locks_per_transaction'];

/**
 * A real streaming replica of the test PostgreSQL: a base backup (`pg_basebackup -R -X stream`) in a
 * temporary directory, served by PostgreSQL's own `postgres` binary on a free port. It needs the
 * primary to admit replication connections from loopback (pg_hba.conf).
 */
export class StreamingReplica {
  private constructor(
    readonly port: number,
    private readonly child: ChildProcess,
    private readonly dir: string,
    private readonly log: () => string,
  ) {}

  static async start(): Promise<StreamingReplica> {
    const primary = new URL(ADMIN_DATABASE_URL);
    const settings = await primarySettings();
    const bin = process.env.TEST_POSTGRES_BIN ?? `/usr/lib/postgresql/${settings.major}/bin`;
    if (!existsSync(join(bin, 'postgres'))) throw new Error(`${bin}/postgres is missing: point TEST_POSTGRES_BIN at the bin directory of PostgreSQL ${settings.major}.`);
    const user = postgresUser();
    const dir = tempDirFor(user, 'foresight-replica-');
    const data = join(dir, 'data');
    try {
      // -R writes standby.signal and primary_conninfo; -c fast: do not wait for the primary's next checkpoint.
      await promisify(execFile)(
        join(bin, 'pg_basebackup'),
        ['-h', primary.hostname, '-p', primary.port || '5432', '-U', decodeURIComponent(primary.username), '-D', data, '-R', '-X', 'stream', '-c', 'fast'],
        { ...user, cwd: dir },
      );
    } catch (error) {
      rmSync(dir, { recursive: true, force: true });
      throw new Error(`pg_basebackup failed: ${(error as { stderr?: string }).stderr ?? String(error)}`, { cause: error });
    }
    // Debian keeps the configuration in /etc, outside the data directory the backup copied.
    if (!existsSync(join(data, 'postgresql.conf'))) writeFileSync(join(data, 'postgresql.conf'), '');
    writeFileSync(join(data, 'pg_hba.conf'), 'local all all trust\nhost all all 127.0.0.1/32 trust\n');
    writeFileSync(join(data, 'pg_ident.conf'), '');
    const port = await freePort();
    const options = {
      listen_addresses: '127.0.0.1',
      unix_socket_directories: dir,
      hot_standby: 'on',
      // Long reads (training's cursors) are not cancelled for rows the primary's vacuum removed meanwhile.
      hot_standby_feedback: 'on',
      shared_buffers: '32MB',
      fsync: 'off',
      logging_collector: 'off',
      // Every statement, with the client's application_name and database: what `statements` reads.
      log_statement: 'all',
      log_line_prefix: LOG_PREFIX,
      ...settings.atLeast,
    };
    const child = spawn(join(bin, 'postgres'), ['-D', data, '-p', String(port), ...Object.entries(options).flatMap(([name, value]) => ['-c', `${name}=${value}`])], {
      ...user,
      cwd: dir,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const chunks: string[] = [];
    child.stdout?.on('data', (d: Buffer) => chunks.push(d.toString()));
    child.stderr?.on('data', (d: Buffer) => chunks.push(d.toString()));
    const replica = new StreamingReplica(port, child, dir, () => chunks.join(''));
    await eventually(
      'the replica to stream from the primary',
      async () => {
        if (child.exitCode !== null) throw new Error(`the replica's postgres exited with ${child.exitCode}:\n${replica.log()}`);
        const [row] = await replica.query<{ recovering: boolean; status: string | null }>(
          'postgres',
          `SELECT pg_is_in_recovery() AS recovering, (SELECT status FROM pg_stat_wal_receiver) AS status`,
        );
        if (!row.recovering) throw new Error('the replica is not in recovery');
        return row.status === 'streaming' ? true : undefined;
      },
      60_000,
    ).catch(async (error: unknown) => {
      await replica.stop();
      throw error;
    });
    return replica;
  }

  /** The same database and user as `databaseUrl` (a URL of the primary), on this replica. */
  urlFor(databaseUrl: string): string {
    const url = new URL(databaseUrl);
    url.hostname = '127.0.0.1';
    url.port = String(this.port);
    return url.toString();
  }

  /** One statement on the replica, in `database`. */
  async query<T>(database: string, text: string, params: unknown[] = []): Promise<T[]> {
    const url = new URL(ADMIN_DATABASE_URL);
    url.pathname = `/${database}`;
    const pg = new Client({ connectionString: this.urlFor(url.toString()) });
    await pg.connect();
    try {
      return (await pg.query(text, params)).rows as T[];
    } finally {
      await pg.end();
    }
  }

  /** Until `resumeReplay`, the replica receives WAL but applies none of it: it falls behind. */
  async pauseReplay(): Promise<void> {
    await this.query('postgres', 'SELECT pg_wal_replay_pause()');
    await eventually('replay to pause', async () => {
      const [row] = await this.query<{ state: string }>('postgres', 'SELECT pg_get_wal_replay_pause_state() AS state');
      return row.state === 'paused' ? true : undefined;
    });
  }

  async resumeReplay(): Promise<void> {
    await this.query('postgres', 'SELECT pg_wal_replay_resume()');
  }

  /** Waits until the replica has applied everything the primary had written when this was called. */
  async caughtUp(): Promise<void> {
    const primary = new Client({ connectionString: ADMIN_DATABASE_URL });
    await primary.connect();
    const [{ lsn }] = (await primary.query<{ lsn: string }>('SELECT pg_current_wal_lsn()::text AS lsn').finally(() => primary.end())).rows;
    await eventually('the replica to catch up', async () => {
      const [row] = await this.query<{ behind: boolean }>('postgres', 'SELECT pg_last_wal_replay_lsn() < $1::pg_lsn AS behind', [lsn]);
      return row.behind ? undefined : true;
    });
  }

  /** A mark in the replica's log: `statements` reads what was logged after it. */
  mark(): number {
    return this.log().length;
  }

  /** The statements the replica ran since `mark` in `database` for clients that named themselves `application`. */
  statements(database: string, application: string, since = 0): string[] {
    // A statement's further lines are logged after a tab.
    const entries = this.log().slice(since).split(/\n(?!\t)/);
    return entries.flatMap((entry) => {
      const match = LOG_ENTRY.exec(entry.replace(/\n\t/g, '\n'));
      return match && match[1] === application && match[2] === database ? [match[3]] : [];
    });
  }

  output(): string {
    return this.log();
  }

  async stop(): Promise<void> {
    // SIGINT: PostgreSQL's fast shutdown (ends sessions, no waiting for clients).
    await stopAndRemove(this.child, 'SIGINT', this.dir);
  }
}

/** The primary's major version and the settings the replica must match; fails clearly when it does not admit replication connections. */
async function primarySettings(): Promise<{ major: number; atLeast: Record<string, string> }> {
  const pg = new Client({ connectionString: ADMIN_DATABASE_URL });
  await pg.connect();
  try {
    const { rows: hba } = await pg.query<{ rules: string }>(
      `SELECT count(*) AS rules FROM pg_hba_file_rules
        WHERE type = 'host' AND 'replication' = ANY(database) AND auth_method = 'trust'
          AND CASE WHEN address IN ('all', 'samehost') THEN true
                   WHEN address ~ '^[0-9.]+$' AND netmask ~ '^[0-9.]+$' THEN ('127.0.0.1'::inet & netmask::inet) = address::inet
                   ELSE false END`,
    );
    if (Number(hba[0].rules) === 0) {
      throw new Error(
        'The read-replica suite takes a base backup of the test PostgreSQL: add `host replication all 127.0.0.1/32 trust` at the top of its ' +
          'pg_hba.conf (SHOW hba_file) and reload it (pg_ctlcluster 15 main reload, or SELECT pg_reload_conf()). .ci/run does this in CI.',
      );
    }
    const { rows } = await pg.query<{ name: string; setting: string }>(
      `SELECT name, setting FROM pg_settings WHERE name = ANY($1) OR name = 'server_version_num'`,
      [AT_LEAST_PRIMARY],
    );
    const byName = Object.fromEntries(rows.map((r) => [r.name, r.setting]));
    const { server_version_num: version, ...atLeast } = byName;
    return { major: Math.floor(Number(version) / 10_000), atLeast };
  } finally {
    await pg.end();
  }
}
