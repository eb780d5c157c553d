import { sqlStatement } from '@foresight/platform';

export interface SealedRow {
  ctid: string;
  organization_id: string;
  message_id: string;
  properties: string | null;
  context: string | null;
  encryption_key_id: string | null;
}

export const EVENT_PARTITIONS = sqlStatement<{ name: string }, []>(
  'events.event-partitions',
  `SELECT c.relname AS name FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid WHERE i.inhparent = 'events'::regclass ORDER BY 1`,
);

export const PARTITION_PAGES = sqlStatement<{ pages: string }, [partition: string]>(
  'events.partition-pages',
  `SELECT pg_relation_size($1::regclass) / current_setting('block_size')::int AS pages`,
);

/*
 * A partition's name is a table name, not a parameter: these are built per partition, from the
 * names EVENT_PARTITIONS read from the catalog.
 */

/** The rows in the heap pages [$1, $2) not sealed under key $3, locked until re-sealed. */
export const sealedRowsOf = (partition: string) =>
  sqlStatement<SealedRow, [from: string, to: string, keyId: string]>(
    'events.reencryption-rows',
    `SELECT ctid::text AS ctid, organization_id, message_id, properties, context, encryption_key_id FROM ${partition}
      WHERE ctid >= $1::tid AND ctid < $2::tid AND (properties IS NOT NULL OR context IS NOT NULL)
        AND encryption_key_id IS DISTINCT FROM $3
      FOR UPDATE`,
  );

/**
 * Writes the rows re-sealed under key $5, in the pages [$6, $7) they were read from, each only over
 * a row of the organization it was sealed for ($2).
 */
export const resealRowsOf = (partition: string) =>
  sqlStatement<
    never,
    [ctids: string[], organizationIds: string[], properties: Array<string | null>, contexts: Array<string | null>, keyId: string, from: string, to: string]
  >(
    'events.reencryption-reseal',
    `UPDATE ${partition} AS e SET properties = u.properties, context = u.context, encryption_key_id = $5
       FROM unnest($1::tid[], $2::text[], $3::text[], $4::text[]) AS u(ctid, organization_id, properties, context)
      WHERE e.ctid = u.ctid AND e.organization_id = u.organization_id AND e.ctid >= $6::tid AND e.ctid < $7::tid`,
  );
