import { readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import type { SqlStatement } from '@foresight/platform';
import { openServiceDatabase, type ServiceDatabase } from '../support/service-database';

/**
 * Statements that read or write organization-owned rows without an organization_id condition, each
 * with why. Everything else that names an organization-owned table scopes it to an organization.
 */
const UNSCOPED_BY_DESIGN: Record<string, string> = {
  'auth.token-by-secret-hash': 'a bearer token is looked up by its secret before any organization is known; the organization is the one the token row names',
  'events.reencryption-rows': "key rotation re-seals every organization's events, page by page of each partition; each row it reads carries its organization, which the reseal matches",
  'platform.some-sealed-event-key': 'the start-up key check reads which key id sealed any one event, never the event itself',
  'platform.move-from-default-partition': "partition maintenance moves every organization's rows of a new month out of the default partition",
  'privacy.unconfirmed-erasures':
    "the worker's resumer finds every organization's erasures not confirmed (Redis may have lost their sweep jobs); each sweep it queues again names the erasure's organization",
  'webhooks.stranded-deliveries':
    "the worker's resumer finds every organization's deliveries left pending past their due time (Redis may have lost their jobs); each job it queues again names the delivery's organization",
  'predictions.unfinished-scoring-runs':
    "the worker's resumer finds every organization's scoring runs left queued or running (Redis may have lost their jobs); each job it queues again names the run's organization",
  'domain-events.stranded-published':
    "the worker's resumer finds every organization's published events left in the outbox (Redis may have lost their jobs); each event it queues again names its organization",
  'webhooks.prediction-updates-wanted-by':
    "the worker restores, from every organization's enabled webhooks, which organizations are re-scored on new events (Redis may have lost that set); it reads organization ids only",
};

/**
 * The statement builders of the *.sql.ts files (exported functions that return a statement), each
 * called with arguments naming real tables. Any other exported function must be a SQL fragment.
 */
const BUILDERS: Record<string, (build: (...args: never[]) => unknown) => unknown[]> = {
  sealedRowsOf: (build) => [(build as (partition: string) => unknown)('events_default')],
  resealRowsOf: (build) => [(build as (partition: string) => unknown)('events_default')],
  exportBatch: (build) => exportShapes().map((range) => (build as (range: object, take: number) => unknown)(range, 100)),
  exportRowAt: (build) => exportShapes().map((range) => (build as (range: object, offset: number) => unknown)(range, 100)),
  batchedDelete: () => [],
  dropPartition: (build) => [(build as (name: string) => unknown)('events_default')],
  createPartition: (build) => [(build as (table: string, name: string) => unknown)('events', 'events_default')],
  moveFromDefaultPartition: (build) => [(build as (table: string, column: string, name: string) => unknown)('events', 'occurred_at', 'events_default')],
  attachPartition: (build) => [(build as (table: string, month: object) => unknown)('events', { name: 'events_default', from: '2026-01-01', to: '2026-02-01' })],
  analyze: (build) => [(build as (tables: string[]) => unknown)(['events'])],
  vacuumAnalyze: (build) => [(build as (table: string) => unknown)('events')],
};

function exportShapes(): object[] {
  const after = { position: { predictedAt: '2026-01-01T00:00:00.000000Z', id: '1' }, inclusive: false };
  return [{ organizationId: 'org', since: 'a', until: 'b' }, { organizationId: 'org', since: 'a', until: 'b', model: 'churn', after }];
}

const ROOT = join(__dirname, '..', '..');

/**
 * Every statement in a *.sql.ts file (libs/**, apps/**) that names an organization-owned table (one
 * with an organization_id column, read from a freshly migrated database) scopes each reference to
 * an organization: a condition on its organization_id (WHERE, or the join's ON or USING), or
 * organization_id among the columns it inserts. A wrong id passed along then never reaches another
 * organization's rows, and every lookup uses the keys that organization_id leads.
 */
describe('every statement scoped to an organization', () => {
  let db: ServiceDatabase;
  let owned: Set<string>;
  let statements: Array<{ file: string; statement: SqlStatement }>;

  beforeAll(async () => {
    db = await openServiceDatabase('organization_scope');
    const rows = await db.dataSource.query<Array<{ name: string }>>(
      `SELECT DISTINCT table_name AS name FROM information_schema.columns WHERE table_schema = 'public' AND column_name = 'organization_id'`,
    );
    owned = new Set(rows.map((row) => row.name));
    statements = await loadStatements();
  });

  afterAll(async () => {
    await db?.close();
  });

  it('finds the schema and the statements it checks', () => {
    expect([...owned]).toEqual(expect.arrayContaining(['events', 'events_default', 'predictions', 'scoring_runs', 'erasures', 'webhooks']));
    expect(owned.has('organizations')).toBe(false);
    expect(statements.length).toBeGreaterThan(80);
  });

  it('names only statements that exist in the exceptions', () => {
    const names = new Set(statements.map(({ statement }) => statement.name));
    expect(Object.keys(UNSCOPED_BY_DESIGN).filter((name) => !names.has(name))).toEqual([]);
  });

  it('scopes every reference to an organization-owned table by organization_id', () => {
    const unscoped = statements.flatMap(({ file, statement }) =>
      Object.hasOwn(UNSCOPED_BY_DESIGN, statement.name) ? [] : unscopedReferences(statement.text, owned).map((table) => `${file} ${statement.name}: ${table}`),
    );
    expect(unscoped).toEqual([]);
  });

  it('tells a scoped reference from an unscoped one', () => {
    const tables = new Set(['events', 'identities', 'scoring_runs']);
    expect(unscopedReferences(`UPDATE scoring_runs SET total = $2 WHERE id = $1`, tables)).toEqual(['scoring_runs']);
    expect(unscopedReferences(`UPDATE scoring_runs SET total = $2 WHERE id = $1 AND organization_id = $3`, tables)).toEqual([]);
    expect(unscopedReferences(`SELECT organization_id, id FROM scoring_runs WHERE id = $1`, tables)).toEqual(['scoring_runs']);
    expect(unscopedReferences(`SELECT 1 FROM events e LEFT JOIN identities i ON i.anonymous_id = e.anonymous_id WHERE e.organization_id = $1`, tables)).toEqual([
      'identities i',
    ]);
    expect(unscopedReferences(`SELECT 1 FROM events e JOIN identities i USING (organization_id, anonymous_id) WHERE e.organization_id = $1`, tables)).toEqual([]);
    expect(unscopedReferences(`WITH input AS (SELECT $1 AS organization_id, $2 AS anonymous_id) SELECT i.user_id FROM identities i JOIN input USING (organization_id, anonymous_id)`, tables)).toEqual([]);
    expect(unscopedReferences(`INSERT INTO events (organization_id, message_id) VALUES ($1, $2)`, tables)).toEqual([]);
    expect(unscopedReferences(`INSERT INTO events (message_id) VALUES ($1)`, tables)).toEqual(['events']);
  });
});

async function loadStatements(): Promise<Array<{ file: string; statement: SqlStatement }>> {
  const files = ['libs', 'apps'].flatMap((top) =>
    readdirSync(join(ROOT, top), { recursive: true, encoding: 'utf8' })
      .filter((path) => path.endsWith('.sql.ts') && !path.includes('node_modules'))
      .map((path) => join(ROOT, top, path)),
  );
  const found: Array<{ file: string; statement: SqlStatement }> = [];
  for (const path of files) {
    const file = relative(ROOT, path);
    const exported = (await import(path)) as Record<string, unknown>;
    for (const [name, value] of Object.entries(exported)) {
      for (const statement of statementsIn(file, name, value)) found.push({ file, statement });
    }
  }
  return found;
}

/** The statements an export holds: itself, the values of an object of them, or what a builder returns. */
function statementsIn(file: string, name: string, value: unknown): SqlStatement[] {
  if (isStatement(value)) return [value];
  if (typeof value === 'function') {
    const build = value as (...args: never[]) => unknown;
    if (Object.hasOwn(BUILDERS, name)) return BUILDERS[name](build).flatMap((built) => statementsIn(file, name, built));
    // A fragment takes and gives SQL text; anything else is a builder this test does not know yet.
    const fragment = (build as (...args: string[]) => unknown)('$1', '$2', '$3');
    if (typeof fragment !== 'string') throw new Error(`${file} ${name}: a statement builder; add it to BUILDERS`);
    return [];
  }
  if (value !== null && typeof value === 'object') {
    if ('statement' in value) return statementsIn(file, name, value.statement);
    return Object.values(value).flatMap((inner: unknown) => statementsIn(file, name, inner));
  }
  return [];
}

function isStatement(value: unknown): value is SqlStatement {
  return value !== null && typeof value === 'object' && 'name' in value && 'text' in value && typeof value.text === 'string';
}

/** A table named after FROM, JOIN, UPDATE, INTO or COPY, with its alias when it has one. */
const REFERENCE = /\b(from|join|update|into|copy)\s+(?:only\s+)?([a-z_][a-z0-9_]*)(?:\s+(?:as\s+)?([a-z_][a-z0-9_]*))?/g;
const NOT_ALIAS = new Set([
  'where', 'set', 'join', 'left', 'right', 'inner', 'full', 'cross', 'natural', 'on', 'using', 'group', 'order', 'limit', 'offset',
  'union', 'except', 'intersect', 'returning', 'select', 'values', 'for', 'window', 'having', 'default', 'from', 'with',
]);

/** The references (table, and alias) of `text` to tables in `owned` that no organization_id scopes. */
function unscopedReferences(text: string, owned: ReadonlySet<string>): string[] {
  const sql = text.replace(/--[^\n]*/g, '').replace(/\/\*[\s\S]*?\*\//g, '').toLowerCase();
  const unscoped: string[] = [];
  for (const match of sql.matchAll(REFERENCE)) {
    const [whole, keyword, table, word] = match;
    if (!owned.has(table)) continue;
    const alias = word && !NOT_ALIAS.has(word) ? word : undefined;
    const after = sql.slice((match.index ?? 0) + (alias ? whole.length : whole.length - (word?.length ?? 0)));
    if (scoped(sql, keyword, table, alias, after)) continue;
    unscoped.push(alias ? `${table} ${alias}` : table);
  }
  return unscoped;
}

function scoped(sql: string, keyword: string, table: string, alias: string | undefined, after: string): boolean {
  // Rows written with their organization_id.
  if ((keyword === 'into' || keyword === 'copy') && /^\s*\([^)]*\borganization_id\b/.test(after)) return true;
  // A join with organization_id among its USING columns: this reference's, or the next table's.
  if (/^\s*(?:(?:left|right|inner|full|cross)\s+(?:outer\s+)?)?(?:join\s+\w+(?:\s+(?:as\s+)?\w+)?\s+)?using\s*\([^)]*\borganization_id\b/.test(after)) return true;
  // A comparison of the reference's organization_id (qualified by its alias or table name, or bare when it has no alias).
  const column = alias ? `\\b(?:${alias})\\.organization_id\\b` : `(?:\\b${table}\\.|(?<![.\\w]))organization_id\\b`;
  return new RegExp(`${column}\\s*(?:=|<>|\\bin\\b)|(?:=|<>)\\s*${column}`).test(sql);
}
