import { type SqlStatement, sqlStatement } from './sql/sql-statement';

/** The partitions of a table (names, in order). */
export const PARTITIONS_OF = sqlStatement<{ name: string }, [table: string]>(
  'platform.partitions-of',
  `SELECT c.relname AS name FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid WHERE i.inhparent = $1::regclass ORDER BY 1`,
);

/** Held to the end of the transaction: concurrent workers changing one table's partitions queue behind each other. */
export const LOCK_PARTITIONS = sqlStatement<{ pg_advisory_xact_lock: string }, [key: string]>('platform.lock-partitions', `SELECT pg_advisory_xact_lock(hashtext($1))`);

export const RELATION_EXISTS = sqlStatement<{ exists: boolean }, [name: string]>('platform.relation-exists', `SELECT to_regclass($1) IS NOT NULL AS exists`);

/*
 * DDL names tables, which cannot be parameters: the names below come from code (the partitioned
 * tables and their month names, or partitions PostgreSQL listed), never from input.
 */

export function dropPartition(name: string): SqlStatement<never, []> {
  return sqlStatement('platform.drop-partition', `DROP TABLE IF EXISTS ${name}`);
}

export function createPartition(table: string, name: string): SqlStatement<never, []> {
  return sqlStatement('platform.create-partition', `CREATE TABLE ${name} (LIKE ${table} INCLUDING DEFAULTS INCLUDING CONSTRAINTS)`);
}

/** The default partition's rows of the month [$1, $2) into the new partition, before it is attached. */
export function moveFromDefaultPartition(table: string, column: string, name: string): SqlStatement<never, [from: string, to: string]> {
  return sqlStatement(
    'platform.move-from-default-partition',
    `WITH moved AS (DELETE FROM ${table}_default WHERE ${column} >= $1 AND ${column} < $2 RETURNING *)
     INSERT INTO ${name} SELECT * FROM moved`,
  );
}

/** Bounds are literals: ATTACH PARTITION takes no parameters. */
export function attachPartition(table: string, month: { name: string; from: string; to: string }): SqlStatement<never, []> {
  return sqlStatement('platform.attach-partition', `ALTER TABLE ${table} ATTACH PARTITION ${month.name} FOR VALUES FROM ('${month.from}') TO ('${month.to}')`);
}

export function analyze(tables: readonly string[]): SqlStatement<never, []> {
  return sqlStatement('platform.analyze', `ANALYZE ${tables.join(', ')}`);
}

/** Outside a transaction: VACUUM refuses to run in one. */
export function vacuumAnalyze(table: string): SqlStatement<never, []> {
  return sqlStatement('platform.vacuum-analyze', `VACUUM (ANALYZE) ${table}`);
}
