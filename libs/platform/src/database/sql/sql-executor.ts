import { finished } from 'node:stream/promises';
import { Inject, Injectable, type OnApplicationShutdown } from '@nestjs/common';
import type { Pool, PoolClient, QueryResult } from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { DataSource, type EntityManager } from 'typeorm';
import type { PostgresDriver } from 'typeorm/driver/postgres/PostgresDriver';
import type { PostgresQueryRunner } from 'typeorm/driver/postgres/PostgresQueryRunner';
import type { AppConfig } from '../../config/config';
import { APP_CONFIG } from '../../config/config.module';
import type { Logger } from '../../logging/logger';
import { LOGGER } from '../../logging/logger.provider';
import { postgresErrorCode } from '../postgres-values';
import { keepClientErrorsHandled } from './client-errors';
import { ReadReplica } from './read-replica';
import { PgSqlRunner, PreparedStatementPolicy, type SqlRunner } from './sql-runner';
import type { SqlStatement } from './sql-statement';

/**
 * Where a read runs. `replica`: reads that tolerate the replica's lag (exports, monitoring,
 * dashboard aggregates, training and bulk-scoring cursors); they run on the primary when no
 * DATABASE_READ_URL is set, or while the replica is unreachable or lags too far behind.
 */
export type SqlTarget = 'primary' | 'replica';

export interface SqlTransactionOptions {
  readonly on?: SqlTarget;
  readonly isolation?: 'READ COMMITTED' | 'REPEATABLE READ';
  readonly readOnly?: boolean;
  /** False: PostgreSQL's JIT compilation off for the whole transaction. */
  readonly jit?: boolean;
}

/** A transaction held open across awaits (a cursor read page by page); it must end with commit or rollback. */
export interface SqlTransaction extends SqlRunner {
  commit(): Promise<void>;
  rollback(): Promise<void>;
}

/**
 * The one way hand-written SQL reaches PostgreSQL. It knows the primary from the replica, whether
 * named prepared statements may be kept (a direct connection) or not (the embedded database, a
 * transaction pooler: DATABASE_POOL_MODE=transaction), and COPY. Plain entity reads and writes stay
 * with TypeORM's repositories; statements inside a TypeORM transaction go through `within(manager)`.
 */
@Injectable()
export class SqlExecutor implements SqlRunner, OnApplicationShutdown {
  private readonly primaryPool: Pool;
  private readonly primary: PgSqlRunner;
  private readonly prepared: PreparedStatementPolicy;
  private readonly readReplica?: ReadReplica;

  constructor(
    private readonly dataSource: DataSource,
    @Inject(APP_CONFIG) config: AppConfig,
    @Inject(LOGGER) logger: Logger,
  ) {
    this.primaryPool = (dataSource.driver as PostgresDriver).master as Pool;
    keepClientErrorsHandled(this.primaryPool, logger, 'PostgreSQL');
    this.prepared = new PreparedStatementPolicy(!config.embedded && config.databasePoolMode === 'session', (statement) =>
      logger.error(
        { statement },
        'a prepared statement was not found on the connection it was prepared on: PostgreSQL is behind a transaction pooler; set DATABASE_POOL_MODE=transaction. Statements go unprepared from now on',
      ),
    );
    this.primary = this.runnerOn(this.primaryPool, false);
    if (config.databaseReadUrl) this.readReplica = new ReadReplica(config.databaseReadUrl.reveal(), config, logger);
  }

  /** Whether named prepared statements are kept on this process's connections. */
  get preparesStatements(): boolean {
    return this.prepared.enabled;
  }

  rows: SqlRunner['rows'] = (statement, params) => this.primary.rows(statement, params);
  first: SqlRunner['first'] = (statement, params) => this.primary.first(statement, params);
  arrays: SqlRunner['arrays'] = (statement, params) => this.primary.arrays(statement, params);
  affected: SqlRunner['affected'] = (statement, params) => this.primary.affected(statement, params);

  /**
   * Reads that tolerate the replica's lag (see SqlTarget); each statement on its own. One the replica
   * fails to answer (gone since its last check, or cancelled by its recovery) is read on the primary.
   */
  readonly replica: SqlRunner = runnerThrough(async (use) => {
    const runner = await this.readRunner();
    if (runner === this.primary || !this.readReplica) return use(runner);
    try {
      return await use(runner);
    } catch (error) {
      if (!(error instanceof Error) || !isReplicaUnavailable(error)) throw error;
      this.readReplica.lost(error);
      return use(this.primary);
    }
  });

  /** Statements on a TypeORM transaction's connection (`dataSource.transaction(async (manager) => …)`). */
  within(manager: EntityManager): SqlRunner {
    return runnerThrough(async (use) => use(this.runnerOn((await (manager.queryRunner as PostgresQueryRunner).connect()) as PoolClient, true)));
  }

  /**
   * `COPY … FROM STDIN` of `text` (whole rows in the statement's format) inside a TypeORM transaction.
   * PostgreSQL only: the embedded database's socket does not speak COPY FROM STDIN.
   */
  async copyIn(manager: EntityManager, statement: SqlStatement<never, readonly []>, text: string): Promise<void> {
    const client = (await (manager.queryRunner as PostgresQueryRunner).connect()) as PoolClient;
    const copy = client.query(copyFrom(statement.text));
    copy.end(text);
    try {
      await finished(copy);
    } catch (error) {
      // As TypeORM logs its own failed statements (PinoTypeOrmLogger): the error, never the rows.
      this.dataSource.logger.logQueryError(error as Error, statement.name, [], manager.queryRunner);
      throw error;
    }
  }

  /** Runs `work` in one transaction, committed when it returns and rolled back when it throws. */
  async transaction<T>(work: (tx: SqlRunner) => Promise<T>, options: SqlTransactionOptions = {}): Promise<T> {
    const { client, end } = await this.openOn(options);
    return settled(end, () => work(this.runnerOn(client, true)));
  }

  /** A transaction held across awaits; prefer `transaction(work)` where the work fits in one callback. */
  async begin(options: SqlTransactionOptions = {}): Promise<SqlTransaction> {
    const { client, end } = await this.openOn(options);
    const runner = this.runnerOn(client, true);
    return { ...runnerThrough((use) => use(runner)), commit: () => end('COMMIT'), rollback: () => end('ROLLBACK') };
  }

  async onApplicationShutdown(): Promise<void> {
    await this.readReplica?.close();
  }

  /** `open` on the options' target; a replica that cannot start a transaction is replaced by the primary. */
  private async openOn(options: SqlTransactionOptions): ReturnType<SqlExecutor['open']> {
    const pool = await this.poolFor(options.on);
    try {
      return await this.open(pool, options);
    } catch (error) {
      if (pool === this.primaryPool || !this.readReplica || !(error instanceof Error) || !isReplicaUnavailable(error)) throw error;
      this.readReplica.lost(error);
      return this.open(this.primaryPool, options);
    }
  }

  /** A connection of `pool` inside a new transaction, and how that transaction ends (once; the connection is released then). */
  private async open(pool: Pool, options: SqlTransactionOptions): Promise<{ client: PoolClient; end: (statement: 'COMMIT' | 'ROLLBACK') => Promise<void> }> {
    const client = await pool.connect();
    const settings = [options.isolation ? `ISOLATION LEVEL ${options.isolation}` : '', options.readOnly ? 'READ ONLY' : ''].filter(Boolean).join(' ');
    let ended = false;
    const end = async (statement: 'COMMIT' | 'ROLLBACK') => {
      if (ended) return;
      ended = true;
      let failure: Error | undefined;
      try {
        await client.query(statement);
      } catch (error) {
        // A connection whose transaction did not end cleanly is closed, never handed to the next caller.
        failure = error instanceof Error ? error : new Error(String(error));
        if (statement === 'COMMIT') throw error;
      } finally {
        client.release(failure);
      }
    };
    try {
      await client.query(`BEGIN ${settings}${options.jit === false ? '; SET LOCAL jit = off' : ''}`);
    } catch (error) {
      client.release(error instanceof Error ? error : true);
      throw error;
    }
    return { client, end };
  }

  private runnerOn(target: Pool | PoolClient, inTransaction: boolean): PgSqlRunner {
    return new PgSqlRunner(target, this.prepared, inTransaction, (send) => this.withoutJit(this.primaryPool, send));
  }

  /** One statement in a READ ONLY transaction of its own with JIT off (a statement with `jit: false` outside a transaction). */
  private async withoutJit(pool: Pool, send: (connection: PoolClient) => Promise<QueryResult>): Promise<QueryResult> {
    const { client, end } = await this.open(pool, { readOnly: true, jit: false });
    return settled(end, () => send(client));
  }

  private async poolFor(target: SqlTarget = 'primary'): Promise<Pool> {
    return target === 'replica' ? this.readPool() : this.primaryPool;
  }

  private async readPool(): Promise<Pool> {
    return (await this.readReplica?.usablePool()) ?? this.primaryPool;
  }

  private async readRunner(): Promise<SqlRunner> {
    const pool = await this.readPool();
    if (pool === this.primaryPool) return this.primary;
    // Each statement on its own: a replica's statements are never prepared (a replica is often reached through a pooler too).
    return new PgSqlRunner(pool, NEVER_PREPARED, false, (send) => this.withoutJit(pool, send));
  }
}

/** A SqlRunner whose every statement runs on the runner `through` hands it (found per statement: a replica, a transaction's connection). */
function runnerThrough(through: <T>(use: (runner: SqlRunner) => Promise<T>) => Promise<T>): SqlRunner {
  return {
    rows: (statement, params) => through((runner) => runner.rows(statement, params)),
    first: (statement, params) => through((runner) => runner.first(statement, params)),
    arrays: (statement, params) => through((runner) => runner.arrays(statement, params)),
    affected: (statement, params) => through((runner) => runner.affected(statement, params)),
  };
}

/** `work`'s result once the transaction committed; rolled back when `work` throws. */
async function settled<T>(end: (statement: 'COMMIT' | 'ROLLBACK') => Promise<void>, work: () => Promise<T>): Promise<T> {
  let result: T;
  try {
    result = await work();
  } catch (error) {
    await end('ROLLBACK');
    throw error;
  }
  await end('COMMIT');
  return result;
}

/**
 * The replica did not run the statement for reasons of its own: no connection (a socket error, no
 * SQLSTATE), a lost connection (class 08), a server shutting down or restarting (57P01-57P03), or
 * a read cancelled by a conflict with the WAL it replays (40001 on a standby).
 */
function isReplicaUnavailable(error: Error): boolean {
  const code = postgresErrorCode(error);
  return code === undefined || code.startsWith('08') || /^57P0[1-3]$/.test(code) || code === '40001';
}

const NEVER_PREPARED = new PreparedStatementPolicy(false, () => undefined);
