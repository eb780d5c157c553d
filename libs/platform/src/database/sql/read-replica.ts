import { Pool } from 'pg';
import type { AppConfig } from '../../config/config';
import type { Logger } from '../../logging/logger';
import { keepClientErrorsHandled } from './client-errors';

/** The replica connections' application_name. */
const READ_APPLICATION_NAME = 'foresight-read';

/** How often the replica's state is looked at again, at most (on use, never on a timer). */
const CHECK_INTERVAL_MS = 5_000;

/**
 * Seconds the replica's data is behind the primary: 0 while it has replayed all it received, else
 * the age of the last transaction it replayed. Null when the server is not a standby. With it, the
 * WAL position received so far, to tell a replica that falls behind from one that just received a
 * burst after a quiet spell (whose last replayed transaction is old, though it replays at once).
 */
const LAG_SQL = `
  SELECT CASE WHEN NOT pg_is_in_recovery() THEN NULL
              WHEN pg_last_wal_receive_lsn() = pg_last_wal_replay_lsn() THEN 0
              ELSE coalesce(extract(epoch FROM now() - pg_last_xact_replay_timestamp()), 0) END::float8 AS lag,
         pg_last_wal_receive_lsn()::text AS received`;

/** Whether the replica has replayed up to a WAL position it had received. */
const REPLAYED_SQL = `SELECT pg_last_wal_replay_lsn() >= $1::pg_lsn AS replayed`;

/** How long a replica that seems behind is given to replay what it had received, before its lag counts. */
const REPLAY_GRACE_MS = 250;

type ReplicaState = { usable: true; lagSeconds: number } | { usable: false; reason: string };

/**
 * The streaming replica of DATABASE_READ_URL. Reads go to it while it answers and lags at most
 * DATABASE_READ_MAX_LAG; otherwise to the primary, so a lagging or lost replica costs the primary
 * load, never a stale answer beyond the bound or an error.
 */
export class ReadReplica {
  private readonly pool: Pool;
  private readonly maxLagSeconds: number;
  private state: ReplicaState = { usable: false, reason: 'not checked yet' };
  private checkedAt = 0;
  private checking?: Promise<void>;

  constructor(
    url: string,
    config: AppConfig,
    private readonly logger: Logger,
  ) {
    this.maxLagSeconds = config.databaseReadMaxLagSeconds;
    this.pool = new Pool({
      connectionString: url,
      max: config.databasePoolSize,
      idleTimeoutMillis: config.databaseIdleTimeoutMs,
      connectionTimeoutMillis: 5_000,
      // Tells the replica's pg_stat_activity (and its operator) which connections are Foresight's heavy reads.
      application_name: READ_APPLICATION_NAME,
    });
    // An idle connection the replica closed (restart, failover) must not end the process.
    this.pool.on('error', (error) => logger.warn({ err: error }, 'a connection to the read replica failed'));
    keepClientErrorsHandled(this.pool, logger, 'the read replica');
  }

  /** The replica's pool while it is usable; undefined: read from the primary. */
  async usablePool(): Promise<Pool | undefined> {
    if (Date.now() - this.checkedAt >= CHECK_INTERVAL_MS) {
      this.checking ??= this.check().finally(() => (this.checking = undefined));
      await this.checking;
    }
    return this.state.usable ? this.pool : undefined;
  }

  /**
   * A read on the replica failed as a server that went away fails (between two checks): reads go to
   * the primary until the next check finds the replica usable again.
   */
  lost(error: Error): void {
    this.checkedAt = Date.now();
    if (this.state.usable) this.logger.warn(`heavy reads go to the primary: the read replica is not usable, a read on it failed (${error.message})`);
    this.state = { usable: false, reason: error.message };
  }

  async close(): Promise<void> {
    await this.pool.end();
  }

  private async check(): Promise<void> {
    const next = await this.measure().then(
      (lag): ReplicaState => {
        // Not a standby: a promoted replica after a failover, or the primary itself; current either way.
        if (lag === null) return { usable: true, lagSeconds: 0 };
        if (lag > this.maxLagSeconds) return { usable: false, reason: `it lags ${lag.toFixed(1)} s behind (DATABASE_READ_MAX_LAG is ${this.maxLagSeconds} s)` };
        return { usable: true, lagSeconds: lag };
      },
      (error: Error): ReplicaState => ({ usable: false, reason: `it does not answer (${error.message})` }),
    );
    const first = this.checkedAt === 0;
    this.checkedAt = Date.now();
    if (first || next.usable !== this.state.usable) {
      if (next.usable) this.logger.info({ lagSeconds: next.lagSeconds }, 'heavy reads go to the read replica');
      else this.logger.warn(`heavy reads go to the primary: the read replica is not usable, ${next.reason}`);
    }
    this.state = next;
  }

  /** The replica's lag in seconds (null: not a standby), counted only if it has not caught up within REPLAY_GRACE_MS. */
  private async measure(): Promise<number | null> {
    const {
      rows: [{ lag, received }],
    } = await this.pool.query<{ lag: number | null; received: string | null }>(LAG_SQL);
    if (lag === null || lag <= this.maxLagSeconds || received === null) return lag;
    await new Promise((resolve) => setTimeout(resolve, REPLAY_GRACE_MS));
    const {
      rows: [{ replayed }],
    } = await this.pool.query<{ replayed: boolean }>(REPLAYED_SQL, [received]);
    return replayed ? 0 : lag;
  }
}
