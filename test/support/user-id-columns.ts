import type { TestSuite } from './suite';

/** Anything that runs SQL on the schema: a suite, or the soak's own cluster. */
type SqlSource = Pick<TestSuite, 'sql'>;

export interface UserIdColumn {
  table: string;
  column: string;
}

/** Every column of the suite's schema that holds a user or anonymous id (partitions are covered by their parent). */
export function userIdColumns(suite: SqlSource): Promise<UserIdColumn[]> {
  return suite.sql<UserIdColumn>(
    `SELECT c.table_name AS "table", c.column_name AS "column"
       FROM information_schema.columns c
       JOIN information_schema.tables t USING (table_schema, table_name)
      WHERE c.table_schema = 'public' AND t.table_type = 'BASE TABLE'
        AND (c.column_name LIKE '%user_id' OR c.column_name LIKE '%anonymous_id')
        AND NOT EXISTS (SELECT 1 FROM pg_inherits i WHERE i.inhrelid = format('%I.%I', c.table_schema, c.table_name)::regclass)
      ORDER BY 1, 2`,
  );
}
