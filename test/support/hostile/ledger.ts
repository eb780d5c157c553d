import { Client } from 'pg';

/** What the database holds for one organization: per table a row count and, for all but partitioned tables, a digest of the rows. */
export type Fingerprint = Record<string, { rows: number; digest: string | null }>;

interface Table {
  name: string;
  /** Column naming the organization: `organization_id`, or `id` for organizations itself. */
  column: string;
  partitioned: boolean;
}

/**
 * Reads what each request changed, by comparing fingerprints taken before and after it (the suite sends
 * one request at a time and the API runs no background jobs: WORKER_MODE off). Tables are discovered
 * from the catalog, so new tables are watched without touching the suite.
 */
export class Ledger {
  private constructor(
    private readonly pg: Client,
    private readonly tables: Table[],
  ) {}

  static async open(databaseUrl: string): Promise<Ledger> {
    const pg = new Client({ connectionString: databaseUrl });
    await pg.connect();
    const { rows } = await pg.query<{ name: string; column: string; partitioned: boolean }>(`
      SELECT c.relname AS name,
             CASE WHEN c.relname = 'organizations' THEN 'id' ELSE 'organization_id' END AS column,
             c.relkind = 'p' AS partitioned
        FROM pg_class c
        JOIN pg_namespace n ON n.oid = c.relnamespace AND n.nspname = current_schema()
       WHERE c.relkind IN ('r', 'p') AND NOT c.relispartition
         AND (c.relname = 'organizations'
              OR EXISTS (SELECT 1 FROM pg_attribute a WHERE a.attrelid = c.oid AND a.attname = 'organization_id' AND NOT a.attisdropped))
       ORDER BY 1`);
    return new Ledger(pg, rows);
  }

  tableNames(): string[] {
    return this.tables.map((t) => t.name);
  }

  /** `full` digests every table (for the small, untouched organization B). */
  async fingerprint(organizationId: string, full = false): Promise<Fingerprint> {
    const selects = this.tables.map((t) => {
      // A token's last use is written by authentication itself, on any route: it is no write of the route's.
      const row = `(to_jsonb(x) - 'last_used_at')::text`;
      const digest = full || !t.partitioned ? `(SELECT md5(coalesce(string_agg(${row}, '|' ORDER BY ${row}), '')) FROM ${t.name} x WHERE x.${t.column} = $1)` : 'NULL';
      return `SELECT '${t.name}' AS name, (SELECT count(*)::int FROM ${t.name} WHERE ${t.column} = $1) AS rows, ${digest} AS digest`;
    });
    const { rows } = await this.pg.query<{ name: string; rows: number; digest: string | null }>(selects.join(' UNION ALL '), [organizationId]);
    return Object.fromEntries(rows.map((r) => [r.name, { rows: r.rows, digest: r.digest }]));
  }

  async close(): Promise<void> {
    await this.pg.end();
  }
}

/** Tables whose rows changed between two fingerprints, with the change in row count. */
export function changes(before: Fingerprint, after: Fingerprint): Record<string, number> {
  const changed: Record<string, number> = {};
  for (const [name, now] of Object.entries(after)) {
    const then = before[name];
    if (!then || then.rows !== now.rows || then.digest !== now.digest) changed[name] = now.rows - (then?.rows ?? 0);
  }
  return changed;
}

/**
 * Which tables a successful call of an operation may change. An operation not listed here may change
 * nothing when it is a GET; anything otherwise (the 4xx rule still applies to it).
 */
const WRITES: Array<[RegExp, string[]]> = [
  [/^POST \/v1\/(events|batch|b|track|identify|page|screen|alias|group)$/, ['events', 'event_message_keys', 'identities', 'user_activity']],
  [/^POST \/v1\/models$/, ['models', 'audit_log']],
  [/^POST \/v1\/models\/retrain$/, ['models', 'audit_log']],
  [/^(PATCH|DELETE|POST) \/v1\/models\/\{/, ['models', 'model_versions', 'audit_log']],
  [/^POST \/v1\/tokens$/, ['api_tokens', 'audit_log']],
  [/^DELETE \/v1\/tokens\/\{/, ['api_tokens', 'audit_log']],
  [/^POST \/v1\/webhooks$/, ['webhooks', 'audit_log']],
  [/^DELETE \/v1\/webhooks\/\{/, ['webhooks', 'webhook_deliveries', 'audit_log']],
  [/^POST \/v1\/webhooks\/.*\/retry$/, ['webhook_deliveries', 'audit_log']],
  [/^POST \/v1\/webhooks\/\{webhookId\}\/test$/, ['webhook_deliveries']],
  [/^PATCH \/v1\/organization$/, ['organizations', 'audit_log']],
  [/^DELETE \/v1\/users\/suppression$/, ['suppressed_users', 'audit_log']],
  [
    /^DELETE \/v1\/users$/,
    ['events', 'event_message_keys', 'identities', 'user_activity', 'user_windows', 'predictions', 'prediction_outcomes', 'webhook_deliveries', 'erasures', 'suppressed_users', 'audit_log'],
  ],
  [/^(GET \/v1\/predict|POST \/v1\/predict\/batch)$/, ['predictions', 'user_windows']],
  [/^GET \/v1\/users\/export$/, ['audit_log']],
];

export function allowedWrites(operationKey: string, method: string): string[] | 'any' {
  for (const [pattern, tables] of WRITES) if (pattern.test(operationKey)) return tables;
  return method === 'GET' ? [] : 'any';
}
