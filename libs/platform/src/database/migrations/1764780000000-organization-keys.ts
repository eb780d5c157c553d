import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Tables keyed by one id column until now: the key becomes (organization_id, id). */
const ID_KEYED: ReadonlyArray<{ table: string; id: string }> = [
  { table: 'api_tokens', id: 'id' },
  { table: 'models', id: 'id' },
  { table: 'model_versions', id: 'id' },
  { table: 'webhooks', id: 'id' },
  { table: 'webhook_deliveries', id: 'id' },
  { table: 'erasures', id: 'id' },
  { table: 'audit_log', id: 'id' },
  { table: 'prediction_outcomes', id: 'prediction_id' },
  { table: 'model_snapshots', id: 'id' },
  { table: 'scoring_runs', id: 'id' },
];

/**
 * The partitioned tables' new primary keys. A key on a partitioned table must hold the partition key
 * column, so a row is named by (organization_id, time, id): its messageId (unique per organization
 * through event_message_keys) or its sequence id. The time comes second so each organization's rows
 * enter the index at its right end, as they did in the index each key replaces (same leading columns,
 * so its reads use the key instead).
 */
const PARTITIONED: ReadonlyArray<{ table: string; columns: string; replaces: string; replacedColumns: string }> = [
  { table: 'events', columns: 'organization_id, occurred_at, message_id', replaces: 'events_time_idx', replacedColumns: 'organization_id, occurred_at' },
  { table: 'predictions', columns: 'organization_id, predicted_at, id', replaces: 'predictions_export_idx', replacedColumns: 'organization_id, predicted_at, id' },
];

/** Foreign keys between organization-owned tables, before and after. */
const FOREIGN_KEYS: ReadonlyArray<{ table: string; name: string; before: string; after: string }> = [
  {
    table: 'models',
    name: 'models_serving_version_fk',
    before: 'FOREIGN KEY (serving_version_id) REFERENCES model_versions (id)',
    after: 'FOREIGN KEY (organization_id, serving_version_id) REFERENCES model_versions (organization_id, id)',
  },
  {
    table: 'model_versions',
    name: 'model_versions_model_id_fkey',
    before: 'FOREIGN KEY (model_id) REFERENCES models (id) ON DELETE CASCADE',
    after: 'FOREIGN KEY (organization_id, model_id) REFERENCES models (organization_id, id) ON DELETE CASCADE',
  },
  {
    table: 'webhook_deliveries',
    name: 'webhook_deliveries_webhook_id_fkey',
    before: 'FOREIGN KEY (webhook_id) REFERENCES webhooks (id) ON DELETE CASCADE',
    after: 'FOREIGN KEY (organization_id, webhook_id) REFERENCES webhooks (organization_id, id) ON DELETE CASCADE',
  },
];

/** Unique constraints that did not name the organization. */
const UNIQUES: ReadonlyArray<{ table: string; before: string; beforeColumns: string; after: string; afterColumns: string }> = [
  {
    table: 'model_versions',
    before: 'model_versions_model_id_version_key',
    beforeColumns: 'model_id, version',
    after: 'model_versions_organization_id_model_id_version_key',
    afterColumns: 'organization_id, model_id, version',
  },
  {
    table: 'webhook_deliveries',
    before: 'webhook_deliveries_webhook_id_event_id_key',
    beforeColumns: 'webhook_id, event_id',
    after: 'webhook_deliveries_organization_id_webhook_id_event_id_key',
    afterColumns: 'organization_id, webhook_id, event_id',
  },
];

/** The earlier release's messageId claims (EventMessageKeys1764740000000) claim the key under its organization. */
const CLAIM_KEY_TRIGGER = (columns: string, values: string) => `
  CREATE OR REPLACE FUNCTION event_message_ids_claim_key() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    INSERT INTO event_message_keys (${columns}) VALUES (${values}) ON CONFLICT DO NOTHING;
    IF FOUND THEN RETURN NEW; END IF;
    IF current_query() ~* '^\\s*COPY\\M' THEN
      RAISE unique_violation USING MESSAGE = 'duplicate messageId', CONSTRAINT = 'event_message_ids_pkey';
    END IF;
    RETURN NULL;
  END $$`;

/**
 * `organization_id` leads every primary key and unique constraint of organization-owned tables, and
 * every foreign key between them pairs it, so a distributed PostgreSQL (Citus) can shard all of them by
 * organization_id, colocated, without schema surgery (README "Running on Citus"). `events` and
 * `predictions` get primary keys, and the messageId dedupe keys get their organization and the time
 * they were claimed, so retention forgets them (EventsPersonalDataService.expire).
 *
 * Locks, in one transaction (so every lock is held until its commit): first the statements that build
 * (index builds take SHARE: reads go on, writes to that table wait), then the swaps, which take ACCESS
 * EXCLUSIVE for catalog changes only, so reads pause only for the tail of the migration. The big ones:
 * - `events` and `predictions`: one unique index built per partition (SHARE on each partition, as
 *   long as the build takes: about the time of a CREATE INDEX over the table), made each partition's
 *   primary key with ADD CONSTRAINT ... USING INDEX; the parent's ADD PRIMARY KEY then attaches them
 *   without building anything. PostgreSQL refuses USING INDEX on a partitioned table itself, hence the
 *   detour through the partitions.
 * - `event_message_keys`: rebuilt from the messageIds of `events` (a sort of every stored event's key;
 *   ingestion of every release waits for the migration to commit, see below).
 * - `webhook_deliveries` and `prediction_outcomes` (the large id-keyed tables): two index builds each
 *   (the new key, and an index on the id alone), then USING INDEX. Re-adding their foreign keys scans
 *   the referencing table (SHARE ROW EXCLUSIVE) to validate.
 * No table is rewritten in place (event_message_keys is built anew beside the old one).
 */
export class OrganizationKeys1764780000000 implements MigrationInterface {
  name = 'OrganizationKeys1764780000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const partitionsOf = async (table: string) =>
      ((await queryRunner.query(`SELECT c.relname AS name FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid WHERE i.inhparent = $1::regclass ORDER BY 1`, [
        table,
      ])) as Array<{ name: string }>).map((row) => row.name);

    // The dedupe keys held the 16-byte hash alone (EventMessageKeys1764740000000): the organization
    // cannot be read back from it. So they are rebuilt from the messageIds still stored, in events and
    // in the earlier release's event_message_ids, each claimed when its event was received. Keys with
    // neither (their events erased, or past retention) are dropped: past retention they are past the
    // dedupe window too; an erased user's messageId sent again is stored again. Taken first and held
    // to the commit: every release's claim waits here, so none is lost between the read and the swap.
    // The release before this one claims keys without an organization: after the commit its claims
    // fail (the column is NOT NULL), so its ingestion answers errors until it is replaced (README "Upgrading").
    await queryRunner.query(`LOCK TABLE event_message_keys IN ACCESS EXCLUSIVE MODE`);
    await queryRunner.query(`
      CREATE TABLE event_message_keys_by_organization (
        organization_id text NOT NULL,
        key             bytea NOT NULL,
        claimed_at      timestamptz NOT NULL DEFAULT now()
      )`);
    await queryRunner.query(`CREATE UNIQUE INDEX event_message_keys_by_organization_pkey ON event_message_keys_by_organization (organization_id, key)`);
    await queryRunner.query(`
      INSERT INTO event_message_keys_by_organization (organization_id, key, claimed_at)
      SELECT organization_id, event_message_key(organization_id, message_id) AS key, min(received_at)
        FROM (SELECT organization_id, message_id, received_at FROM events
              UNION ALL
              SELECT organization_id, message_id, received_at FROM event_message_ids) stored
       GROUP BY 1, 2
       ORDER BY 1, 2`);

    // Builds (SHARE locks).
    for (const { table, columns } of PARTITIONED) {
      for (const partition of await partitionsOf(table)) await queryRunner.query(`CREATE UNIQUE INDEX ${partition}_pkey ON ${partition} (${columns})`);
    }
    for (const { table, id } of ID_KEYED) {
      await queryRunner.query(`CREATE UNIQUE INDEX ${table}_organization_pkey ON ${table} (organization_id, ${id})`);
      // Statements and TypeORM's save/update still name a row by its id alone (WHERE id = $1): one index step each.
      await queryRunner.query(`CREATE INDEX ${table}_${id}_idx ON ${table} (${id})`);
    }
    for (const { table, after, afterColumns } of UNIQUES) await queryRunner.query(`CREATE UNIQUE INDEX ${after} ON ${table} (${afterColumns})`);
    // Token lookups read by the secret's hash alone, before the organization is known. Its uniqueness
    // (a keyed hash of 32 random bytes) no longer needs a constraint, which a sharded table cannot keep.
    await queryRunner.query(`CREATE INDEX api_tokens_secret_hash_idx ON api_tokens (secret_hash)`);
    await queryRunner.query(`CREATE INDEX event_message_keys_by_organization_claimed_idx ON event_message_keys_by_organization (organization_id, claimed_at)`);

    // Swaps (ACCESS EXCLUSIVE, catalog only; the foreign keys validate by a scan).
    for (const { table, name } of FOREIGN_KEYS) await queryRunner.query(`ALTER TABLE ${table} DROP CONSTRAINT ${name}`);
    for (const { table } of ID_KEYED) {
      await queryRunner.query(`ALTER TABLE ${table} DROP CONSTRAINT ${table}_pkey`);
      await queryRunner.query(`ALTER TABLE ${table} ADD CONSTRAINT ${table}_pkey PRIMARY KEY USING INDEX ${table}_organization_pkey`);
    }
    for (const { table, before, after } of UNIQUES) {
      await queryRunner.query(`ALTER TABLE ${table} DROP CONSTRAINT ${before}`);
      await queryRunner.query(`ALTER TABLE ${table} ADD CONSTRAINT ${after} UNIQUE USING INDEX ${after}`);
    }
    await queryRunner.query(`ALTER TABLE api_tokens DROP CONSTRAINT api_tokens_secret_hash_key`);
    for (const { table, columns, replaces } of PARTITIONED) {
      for (const partition of await partitionsOf(table)) {
        await queryRunner.query(`ALTER TABLE ${partition} ADD CONSTRAINT ${partition}_pkey PRIMARY KEY USING INDEX ${partition}_pkey`);
      }
      await queryRunner.query(`ALTER TABLE ${table} ADD CONSTRAINT ${table}_pkey PRIMARY KEY (${columns})`);
      await queryRunner.query(`DROP INDEX ${replaces}`);
    }
    for (const { table, name, after } of FOREIGN_KEYS) await queryRunner.query(`ALTER TABLE ${table} ADD CONSTRAINT ${name} ${after}`);

    await queryRunner.query(`DROP TABLE event_message_keys`);
    await queryRunner.query(`ALTER TABLE event_message_keys_by_organization RENAME TO event_message_keys`);
    // The name ingestion recognizes a duplicate by (event-writer.service.ts).
    await queryRunner.query(`ALTER TABLE event_message_keys ADD CONSTRAINT event_message_keys_pkey PRIMARY KEY USING INDEX event_message_keys_by_organization_pkey`);
    await queryRunner.query(`ALTER INDEX event_message_keys_by_organization_claimed_idx RENAME TO event_message_keys_claimed_idx`);
    await queryRunner.query(CLAIM_KEY_TRIGGER('organization_id, key', 'NEW.organization_id, event_message_key(NEW.organization_id, NEW.message_id)'));
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(CLAIM_KEY_TRIGGER('key', 'event_message_key(NEW.organization_id, NEW.message_id)'));
    // Keys hash their organization in, so each is unique on its own.
    await queryRunner.query(`ALTER TABLE event_message_keys DROP CONSTRAINT event_message_keys_pkey`);
    await queryRunner.query(`ALTER TABLE event_message_keys DROP COLUMN organization_id, DROP COLUMN claimed_at`);
    await queryRunner.query(`ALTER TABLE event_message_keys ADD PRIMARY KEY (key)`);

    for (const { table, name } of FOREIGN_KEYS) await queryRunner.query(`ALTER TABLE ${table} DROP CONSTRAINT ${name}`);
    for (const { table, replaces, replacedColumns } of PARTITIONED) {
      await queryRunner.query(`CREATE INDEX ${replaces} ON ${table} (${replacedColumns})`);
      await queryRunner.query(`ALTER TABLE ${table} DROP CONSTRAINT ${table}_pkey`);
    }
    await queryRunner.query(`ALTER TABLE api_tokens ADD CONSTRAINT api_tokens_secret_hash_key UNIQUE (secret_hash)`);
    await queryRunner.query(`DROP INDEX api_tokens_secret_hash_idx`);
    for (const { table, before, beforeColumns, after } of UNIQUES) {
      await queryRunner.query(`ALTER TABLE ${table} DROP CONSTRAINT ${after}`);
      await queryRunner.query(`ALTER TABLE ${table} ADD CONSTRAINT ${before} UNIQUE (${beforeColumns})`);
    }
    for (const { table, id } of ID_KEYED) {
      await queryRunner.query(`ALTER TABLE ${table} DROP CONSTRAINT ${table}_pkey`);
      await queryRunner.query(`ALTER TABLE ${table} ADD CONSTRAINT ${table}_pkey PRIMARY KEY (${id})`);
      await queryRunner.query(`DROP INDEX ${table}_${id}_idx`);
    }
    for (const { table, name, before } of FOREIGN_KEYS) await queryRunner.query(`ALTER TABLE ${table} ADD CONSTRAINT ${name} ${before}`);
  }
}
