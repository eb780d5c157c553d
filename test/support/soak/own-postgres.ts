import { execFile } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Client } from 'pg';
import { freePort } from '../ports';
import { postgresUser, type RunAs, tempDirFor } from '../postgres-user';

const run = promisify(execFile);

/** The bin directory of the newest PostgreSQL installed (Debian's layout), or TEST_POSTGRES_BIN. */
function postgresBin(): string {
  if (process.env.TEST_POSTGRES_BIN) return process.env.TEST_POSTGRES_BIN;
  const majors = readdirSync('/usr/lib/postgresql').map(Number).filter(Number.isInteger).sort((a, b) => b - a);
  if (majors.length === 0) throw new Error('no PostgreSQL under /usr/lib/postgresql: point TEST_POSTGRES_BIN at the bin directory of one');
  return `/usr/lib/postgresql/${majors[0]}/bin`;
}

/**
 * A PostgreSQL server of its own (initdb into a temporary directory, its own port), started and
 * stopped with pg_ctl as the `postgres` OS user when running as root, so it can be restarted,
 * crashed and paused without touching the machine's shared server. Durable as in production:
 * fsync and synchronous_commit stay on, since a crash restart must lose no committed row.
 */
export class OwnPostgres {
  private constructor(
    readonly port: number,
    private readonly dir: string,
    private readonly bin: string,
    private readonly user: RunAs,
  ) {}

  static async start(): Promise<OwnPostgres> {
    const user = postgresUser();
    const dir = tempDirFor(user, 'foresight-soak-pg-');
    const postgres = new OwnPostgres(await freePort(), dir, postgresBin(), user);
    await postgres.pgCtl(['initdb', '-o', '--auth=trust --username=postgres --encoding=UTF8 --no-sync']);
    const options = [
      `-p ${postgres.port}`,
      `-k ${dir}`,
      '-c listen_addresses=127.0.0.1',
      '-c max_connections=300',
      '-c shared_buffers=64MB',
      '-c logging_collector=off',
    ].join(' ');
    await postgres.pgCtl(['start', '-w', '-t', '120', '-l', join(dir, 'postgres.log'), '-o', options]);
    return postgres;
  }

  /** The admin URL with `database` in its path. */
  url(database = 'postgres'): string {
    return `postgres://postgres@127.0.0.1:${this.port}/${database}`;
  }

  /** One statement as the superuser, in `database`. */
  async query<T>(text: string, params: unknown[] = [], database = 'postgres'): Promise<T[]> {
    const pg = new Client({ connectionString: this.url(database) });
    await pg.connect();
    try {
      return (await pg.query(text, params)).rows as T[];
    } finally {
      await pg.end();
    }
  }

  /** `fast`: sessions ended, a clean checkpoint. `immediate`: the server dies as in a crash and replays its WAL on start. */
  async restart(mode: 'fast' | 'immediate'): Promise<void> {
    // The log file again: without -l the new server writes to pg_ctl's output, which then never closes.
    await this.pgCtl(['restart', '-w', '-t', '180', '-m', mode, '-l', join(this.dir, 'postgres.log')]);
  }

  /**
   * SIGSTOP of the postmaster for `ms`: it accepts no connection and starts no backend meanwhile
   * (sessions already open keep running), as a network partition in front of the server would.
   */
  async pause(ms: number): Promise<void> {
    const pid = this.postmasterPid();
    process.kill(pid, 'SIGSTOP');
    try {
      await new Promise((resolve) => setTimeout(resolve, ms));
    } finally {
      process.kill(pid, 'SIGCONT');
    }
  }

  postmasterPid(): number {
    return Number(readFileSync(join(this.dir, 'data', 'postmaster.pid'), 'utf8').split('\n')[0]);
  }

  log(): string {
    return readFileSync(join(this.dir, 'postgres.log'), 'utf8');
  }

  /** Stops the server (fast) and removes its directory; a paused server is resumed first. */
  async stop(): Promise<void> {
    try {
      process.kill(this.postmasterPid(), 'SIGCONT');
      await this.pgCtl(['stop', '-w', '-m', 'fast']);
    } catch {
      // Already stopped.
    }
    await run('rm', ['-rf', this.dir]);
  }

  private async pgCtl(args: string[]): Promise<void> {
    try {
      await run(join(this.bin, 'pg_ctl'), [...args.slice(0, 1), '-D', join(this.dir, 'data'), ...args.slice(1)], { ...this.user, cwd: this.dir });
    } catch (error) {
      throw new Error(`pg_ctl ${args[0]} failed: ${(error as { stderr?: string }).stderr ?? String(error)}`, { cause: error });
    }
  }
}
