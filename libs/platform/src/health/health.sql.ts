import { sqlStatement } from '../database/sql/sql-statement';

/** Readiness: the primary answers a statement (through the pool every request uses). */
export const POSTGRES_ANSWERS = sqlStatement<{ answer: number }, []>('platform.postgres-answers', 'SELECT 1 AS answer');
