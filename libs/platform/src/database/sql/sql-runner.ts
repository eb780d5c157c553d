import type { Pool, PoolClient, QueryConfig, QueryResult } from 'pg';
import { postgresErrorCode } from '../postgres-values';
import type { SqlStatement } from './sql-statement';

type RowOf<S> = S extends SqlStatement<infer Row, readonly unknown[]> ? Row : never;
type ParamsOf<S> = S extends SqlStatement<unknown, infer Params> ? Params : never;

/** Runs statements on one place: the primary's pool, the replica's, or one transaction's connection. */
export interface SqlRunner {
  /** Every row, as an object per row. */
  rows<S extends SqlStatement<unknown, readonly unknown[]>>(statement: S, params: ParamsOf<S>): Promise<Array<RowOf<S>>>;
  /** The first row, or undefined. */
  first<S extends SqlStatement<unknown, readonly unknown[]>>(statement: S, params: ParamsOf<S>): Promise<RowOf<S> | undefined>;
  /** Every row as the array of its columns (no object per row), for bulk reads. */
  arrays<S extends SqlStatement<unknown, readonly unknown[]>>(statement: S, params: ParamsOf<S>): Promise<Array<RowOf<S>>>;
  /** The number of rows an INSERT, UPDATE or DELETE touched. */
  affected<S extends SqlStatement<unknown, readonly unknown[]>>(statement: S, params: ParamsOf<S>): Promise<number>;
}

/**
 * Whether this process may keep named prepared statements. A transaction pooler (PgBouncer in
 * transaction mode, RDS Proxy, pgcat, Supavisor) and the embedded database (PGlite serves every
 * connection from one session) share server sessions between client connections, so a name
 * prepared on one is missing, or already taken, on the next.
 */
export class PreparedStatementPolicy {
  constructor(
    private allowed: boolean,
    private readonly onRefused: (statement: string) => void,
  ) {}

  get enabled(): boolean {
    return this.allowed;
  }

  /**
   * A named statement failed because the session behind the connection is not the one it was
   * prepared on: a pooler this process was not told about. From then on statements go unnamed.
   */
  refused(error: unknown, statement: string): boolean {
    const code = postgresErrorCode(error);
    if (!this.allowed || (code !== DUPLICATE_PREPARED_STATEMENT && code !== UNKNOWN_PREPARED_STATEMENT)) return false;
    this.allowed = false;
    this.onRefused(statement);
    return true;
  }
}

const DUPLICATE_PREPARED_STATEMENT = '42P05';
const UNKNOWN_PREPARED_STATEMENT = '26000';

type Queryable = Pick<Pool, 'query'> | Pick<PoolClient, 'query'>;

/** Sends one query inside a READ ONLY transaction of its own with JIT off, on a connection of the runner's pool. */
export type WithoutJit = (send: (connection: Queryable) => Promise<QueryResult>) => Promise<QueryResult>;

/** A SqlRunner over a pg pool (each statement on its own) or a client inside a transaction. */
export class PgSqlRunner implements SqlRunner {
  constructor(
    private readonly target: Queryable,
    private readonly prepared: PreparedStatementPolicy,
    /** Inside a transaction a failed statement cannot be sent again, and jit is the transaction's. */
    private readonly inTransaction: boolean,
    private readonly withoutJit: WithoutJit,
  ) {}

  async rows<S extends SqlStatement<unknown, readonly unknown[]>>(statement: S, params: ParamsOf<S>): Promise<Array<RowOf<S>>> {
    return (await this.run(statement, params, 'object')).rows as Array<RowOf<S>>;
  }

  async first<S extends SqlStatement<unknown, readonly unknown[]>>(statement: S, params: ParamsOf<S>): Promise<RowOf<S> | undefined> {
    return (await this.rows(statement, params))[0];
  }

  async arrays<S extends SqlStatement<unknown, readonly unknown[]>>(statement: S, params: ParamsOf<S>): Promise<Array<RowOf<S>>> {
    return (await this.run(statement, params, 'array')).rows as Array<RowOf<S>>;
  }

  async affected<S extends SqlStatement<unknown, readonly unknown[]>>(statement: S, params: ParamsOf<S>): Promise<number> {
    return (await this.run(statement, params, 'object')).rowCount ?? 0;
  }

  private async run(statement: SqlStatement<unknown, readonly unknown[]>, params: readonly unknown[], rowMode: 'object' | 'array'): Promise<QueryResult> {
    const named = statement.prepared && this.prepared.enabled;
    try {
      return await this.send(queryConfig(statement, params, rowMode, named), statement.jit);
    } catch (error) {
      // Outside a transaction (a jit-off statement's own transaction was rolled back) it goes again, unnamed.
      if (!named || !this.prepared.refused(error, statement.name) || this.inTransaction) throw error;
      return this.send(queryConfig(statement, params, rowMode, false), statement.jit);
    }
  }

  private send(config: QueryConfig, jit: boolean): Promise<QueryResult> {
    if (jit || this.inTransaction) return this.target.query(config);
    return this.withoutJit((connection) => connection.query(config));
  }
}

function queryConfig(statement: SqlStatement<unknown, readonly unknown[]>, params: readonly unknown[], rowMode: 'object' | 'array', named: boolean): QueryConfig {
  const config: QueryConfig = { text: statement.text, values: params as unknown[] };
  if (named) config.name = statement.name;
  if (rowMode === 'array') (config as QueryConfig & { rowMode: 'array' }).rowMode = 'array';
  return config;
}
