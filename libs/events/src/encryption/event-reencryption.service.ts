import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { EventPayloadCipherService } from './event-payload-cipher.service';

/** Heap pages per batch (8 KiB each): a few thousand rows, one short transaction. */
const PAGES_PER_BATCH = 128;

interface SealedRow {
  ctid: string;
  organization_id: string;
  message_id: string;
  properties: string | null;
  context: string | null;
  encryption_key_id: string | null;
}

/**
 * Key rotation: re-seals every event whose properties or context are under another key than the
 * current one (or still plain text from before encryption at rest). Walks each partition in ranges of
 * heap pages (TID range scans), so every batch costs the same however large the table, and needs no
 * index on the key id (which ingestion would pay for). Safe to run again: rows already under the
 * current key are skipped.
 */
@Injectable()
export class EventReencryptionService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly cipher: EventPayloadCipherService,
  ) {}

  /** Returns how many rows were re-sealed. */
  async run(): Promise<number> {
    const partitions: Array<{ name: string }> = await this.dataSource.query(
      `SELECT c.relname AS name FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid WHERE i.inhparent = 'events'::regclass ORDER BY 1`,
    );
    let resealed = 0;
    for (const { name } of partitions) resealed += await this.runPartition(name);
    return resealed;
  }

  private async runPartition(partition: string): Promise<number> {
    let resealed = 0;
    // Re-sealed rows get new tuple versions, possibly on later pages: they are met again and skipped.
    for (let page = 0; page < (await this.pages(partition)); page += PAGES_PER_BATCH) {
      resealed += await this.dataSource.transaction(async (manager) => {
        const range = [`(${page},0)`, `(${page + PAGES_PER_BATCH},0)`];
        const rows: SealedRow[] = await manager.query(
          `SELECT ctid::text AS ctid, organization_id, message_id, properties, context, encryption_key_id FROM ${partition}
            WHERE ctid >= $1::tid AND ctid < $2::tid AND (properties IS NOT NULL OR context IS NOT NULL)
              AND encryption_key_id IS DISTINCT FROM $3
            FOR UPDATE`,
          [...range, this.cipher.keyId],
        );
        if (rows.length === 0) return 0;
        const reseal = (row: SealedRow, field: 'properties' | 'context') =>
          this.cipher.seal(row.organization_id, row.message_id, field, this.cipher.open(row.organization_id, row.message_id, field, row[field], row.encryption_key_id) ?? undefined);
        await manager.query(
          `UPDATE ${partition} AS e SET properties = u.properties, context = u.context, encryption_key_id = $4
             FROM unnest($1::tid[], $2::text[], $3::text[]) AS u(ctid, properties, context)
            WHERE e.ctid = u.ctid AND e.ctid >= $5::tid AND e.ctid < $6::tid`,
          [rows.map((row) => row.ctid), rows.map((row) => reseal(row, 'properties')), rows.map((row) => reseal(row, 'context')), this.cipher.keyId, ...range],
        );
        return rows.length;
      });
    }
    return resealed;
  }

  private async pages(partition: string): Promise<number> {
    const [{ pages }] = await this.dataSource.query<{ pages: string }[]>(`SELECT pg_relation_size($1::regclass) / current_setting('block_size')::int AS pages`, [partition]);
    return Number(pages);
  }
}
