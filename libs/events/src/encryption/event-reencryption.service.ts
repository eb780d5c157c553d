import { Injectable } from '@nestjs/common';
import { SqlExecutor } from '@foresight/platform';
import { EventPayloadCipherService } from './event-payload-cipher.service';
import { EVENT_PARTITIONS, PARTITION_PAGES, resealRowsOf, type SealedRow, sealedRowsOf } from './event-reencryption.sql';

/** Heap pages per batch (8 KiB each): a few thousand rows, one short transaction. */
const PAGES_PER_BATCH = 128;

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
    private readonly sql: SqlExecutor,
    private readonly cipher: EventPayloadCipherService,
  ) {}

  /** Returns how many rows were re-sealed. */
  async run(): Promise<number> {
    const partitions = await this.sql.rows(EVENT_PARTITIONS, []);
    let resealed = 0;
    for (const { name } of partitions) resealed += await this.runPartition(name);
    return resealed;
  }

  private async runPartition(partition: string): Promise<number> {
    let resealed = 0;
    const [readRows, writeRows] = [sealedRowsOf(partition), resealRowsOf(partition)];
    // Re-sealed rows get new tuple versions, possibly on later pages: they are met again and skipped.
    for (let page = 0; page < (await this.pages(partition)); page += PAGES_PER_BATCH) {
      resealed += await this.sql.transaction(async (tx) => {
        const range: [string, string] = [`(${page},0)`, `(${page + PAGES_PER_BATCH},0)`];
        const rows = await tx.rows(readRows, [...range, this.cipher.keyId]);
        if (rows.length === 0) return 0;
        const reseal = (row: SealedRow, field: 'properties' | 'context') =>
          this.cipher.seal(row.organization_id, row.message_id, field, this.cipher.open(row.organization_id, row.message_id, field, row[field], row.encryption_key_id) ?? undefined);
        await tx.affected(writeRows, [
          rows.map((row) => row.ctid),
          rows.map((row) => row.organization_id),
          rows.map((row) => reseal(row, 'properties')),
          rows.map((row) => reseal(row, 'context')),
          this.cipher.keyId,
          ...range,
        ]);
        return rows.length;
      });
    }
    return resealed;
  }

  private async pages(partition: string): Promise<number> {
    const row = await this.sql.first(PARTITION_PAGES, [partition]);
    return Number(row?.pages ?? 0);
  }
}
