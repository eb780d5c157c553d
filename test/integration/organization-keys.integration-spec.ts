import { MIGRATIONS, MonthlyPartitionsService } from '@foresight/platform';
import { OrganizationKeys1764780000000 } from '../../libs/platform/src/database/migrations/1764780000000-organization-keys';
import { openServiceDatabase, type ServiceDatabase } from '../support/service-database';

/**
 * Tables that hold no organization_id, each with why. Everything else is organization-owned and must
 * be distributable by organization_id (Citus: `create_distributed_table(..., 'organization_id')`).
 */
const NOT_ORGANIZATION_OWNED: Record<string, string> = {
  // Its primary key `id` IS the organization id: distributed by `id`, colocated with every other table,
  // whose organization_id references it.
  organizations: 'the organizations themselves',
  // Written by `migrate` only; a local (coordinator) table on Citus.
  schema_migrations: 'migration bookkeeping',
  // One row for the deployment: the value every process opens at start-up to prove its ENCRYPTION_KEY; a local table on Citus.
  encryption_key_check: "the deployment's encryption key check",
};

interface TableKeys {
  table: string;
  /** Columns of each unique index (the primary key's included), first column first; null for an expression. */
  uniques: Array<{ name: string; primary: boolean; columns: Array<string | null> }>;
  /** Each foreign key to another table: pairs of (own column, referenced column), and the referenced table. */
  references: Array<{ name: string; to: string; pairs: Array<[string, string]> }>;
}

/**
 * `organization_id` leads every primary key and unique index of organization-owned tables, and every
 * foreign key between them pairs organization_id with organization_id (Citus needs the distribution
 * column in both), read from the catalog of a freshly migrated database. Partitions inherit their
 * parent's keys, so only top-level tables are read.
 */
describe('keys a distributed PostgreSQL can shard by organization_id', () => {
  let db: ServiceDatabase;
  let tables: Map<string, TableKeys & { owned: boolean }>;

  beforeAll(async () => {
    db = await openServiceDatabase('organization_keys');
    // Monthly partitions are made after `migrate` (LIKE the parent, then attached): they take its keys.
    await new MonthlyPartitionsService(db.sql).ensureAll();
    tables = await readKeys((text) => db.dataSource.query(text));
  });

  afterAll(async () => {
    await db?.close();
  });

  it('finds the schema it checks', () => {
    expect(tables.get('events')?.owned).toBe(true);
    expect(tables.get('predictions')?.owned).toBe(true);
    expect(tables.size).toBeGreaterThan(15);
  });

  it('lists every table without organization_id, and only existing ones', () => {
    const unowned = [...tables.values()].filter((table) => !table.owned).map((table) => table.table);
    expect(unowned.sort()).toEqual(Object.keys(NOT_ORGANIZATION_OWNED).sort());
  });

  it('gives every organization-owned table a primary key that organization_id leads', () => {
    const wrong = owned().flatMap(({ table, uniques }) => {
      const primary = uniques.find((unique) => unique.primary);
      if (!primary) return [`${table}: no primary key`];
      return primary.columns[0] === 'organization_id' ? [] : [`${table}: primary key (${primary.columns.join(', ')})`];
    });
    expect(wrong).toEqual([]);
  });

  it('leads every unique constraint and unique index of an organization-owned table with organization_id', () => {
    const wrong = owned().flatMap(({ table, uniques }) =>
      uniques.filter((unique) => unique.columns[0] !== 'organization_id').map((unique) => `${table}.${unique.name} (${unique.columns.join(', ')})`),
    );
    expect(wrong).toEqual([]);
  });

  it('pairs organization_id in every foreign key between organization-owned tables, and references organizations by it', () => {
    const wrong = owned().flatMap(({ table, references }) =>
      references
        .filter(({ to, pairs }) => {
          const target = tables.get(to);
          if (to === 'organizations') return !pairs.some(([own, theirs]) => own === 'organization_id' && theirs === 'id');
          return !target?.owned || !pairs.some(([own, theirs]) => own === 'organization_id' && theirs === 'organization_id');
        })
        .map(({ name, to, pairs }) => `${table}.${name} -> ${to} (${pairs.map((pair) => pair.join('=')).join(', ')})`),
    );
    expect(wrong).toEqual([]);
  });

  it("gives every partition of events and predictions its parent's primary key", async () => {
    const partitions = await db.dataSource.query<Array<{ parent: string; partition: string; key: string | null }>>(`
      SELECT p.relname::text AS parent, c.relname::text AS partition,
             (SELECT pg_get_constraintdef(k.oid) FROM pg_constraint k WHERE k.conrelid = c.oid AND k.contype = 'p') AS key
        FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid JOIN pg_class p ON p.oid = i.inhparent
       WHERE p.relname IN ('events', 'predictions')`);
    expect(partitions.filter((row) => row.parent === 'events').length).toBeGreaterThan(3);
    expect(partitions.filter((row) => row.key !== `PRIMARY KEY (${row.parent === 'events' ? 'organization_id, occurred_at, message_id' : 'organization_id, predicted_at, id'})`)).toEqual([]);
  });

  it('is undone by its down(), which brings back the keys it replaced, and applies again', async () => {
    const runner = db.dataSource.createQueryRunner();
    await runner.startTransaction();
    try {
      // Later migrations lean on the keys it made (foreign keys to them): undone first, as a rollback would.
      const later = MIGRATIONS.slice(MIGRATIONS.indexOf(OrganizationKeys1764780000000) + 1).map((Migration) => new Migration());
      for (const step of [...later].reverse()) await step.down(runner);
      const migration = new OrganizationKeys1764780000000();
      await migration.down(runner);
      const before = await readKeys((text) => runner.query(text) as Promise<never>);
      expect(before.get('events')?.uniques).toEqual([]);
      expect(before.get('models')?.uniques.map((unique) => unique.columns)).toEqual(expect.arrayContaining([['id'], ['organization_id', 'name']]));
      expect(before.get('event_message_keys')?.owned).toBe(false);
      await migration.up(runner);
      for (const step of later) await step.up(runner);
      expect(await readKeys((text) => runner.query(text) as Promise<never>)).toEqual(tables);
    } finally {
      await runner.rollbackTransaction();
      await runner.release();
    }
  });

  function owned(): TableKeys[] {
    return [...tables.values()].filter((table) => table.owned);
  }
});

type Query = <Row>(text: string) => Promise<Row[]>;

async function readKeys(query: Query): Promise<Map<string, TableKeys & { owned: boolean }>> {
  const relations = await query<{ table: string; owned: boolean }>(`
    SELECT c.relname::text AS "table",
           EXISTS (SELECT 1 FROM pg_attribute a WHERE a.attrelid = c.oid AND a.attname = 'organization_id' AND NOT a.attisdropped) AS owned
      FROM pg_class c
     WHERE c.relnamespace = 'public'::regnamespace AND c.relkind IN ('r', 'p') AND NOT c.relispartition ORDER BY 1`);
  // indkey holds 0 for an expression column: no name, so it never counts as organization_id.
  const uniques = await query<{ table: string; name: string; primary: boolean; columns: Array<string | null> }>(`
    SELECT t.relname::text AS "table", i.relname::text AS name, x.indisprimary AS "primary",
           array(SELECT a.attname::text FROM unnest(x.indkey::int2[]) WITH ORDINALITY k(attnum, n)
                   LEFT JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = k.attnum ORDER BY k.n) AS columns
      FROM pg_index x JOIN pg_class t ON t.oid = x.indrelid JOIN pg_class i ON i.oid = x.indexrelid
     WHERE t.relnamespace = 'public'::regnamespace AND NOT t.relispartition AND x.indisunique ORDER BY 1, 2`);
  const references = await query<{ table: string; name: string; to: string; own: string[]; theirs: string[] }>(`
    SELECT t.relname::text AS "table", f.conname::text AS name, r.relname::text AS "to",
           array(SELECT a.attname::text FROM unnest(f.conkey) WITH ORDINALITY k(attnum, n) JOIN pg_attribute a ON a.attrelid = f.conrelid AND a.attnum = k.attnum ORDER BY k.n) AS own,
           array(SELECT a.attname::text FROM unnest(f.confkey) WITH ORDINALITY k(attnum, n) JOIN pg_attribute a ON a.attrelid = f.confrelid AND a.attnum = k.attnum ORDER BY k.n) AS theirs
      FROM pg_constraint f JOIN pg_class t ON t.oid = f.conrelid JOIN pg_class r ON r.oid = f.confrelid
     WHERE f.contype = 'f' AND t.relnamespace = 'public'::regnamespace AND NOT t.relispartition AND f.conparentid = 0 ORDER BY 1, 2`);
  const byTable = new Map(relations.map(({ table, owned }) => [table, { table, owned, uniques: [] as TableKeys['uniques'], references: [] as TableKeys['references'] }]));
  for (const { table, ...unique } of uniques) byTable.get(table)?.uniques.push(unique);
  for (const { table, name, to, own, theirs } of references) byTable.get(table)?.references.push({ name, to, pairs: own.map((column, i) => [column, theirs[i]]) });
  return byTable;
}
