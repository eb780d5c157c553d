import { Injectable } from '@nestjs/common';
import { SqlExecutor } from '@foresight/platform';
import type { ExportPosition } from './export-cursor';
import { exportBatch, type ExportRange, exportRowAt } from './prediction-export.sql';
import { packRecords, RECORD_SEPARATOR, type SerializedBatch } from './serialized-batch';

/** Rows per query: large enough to amortise a round trip, small enough to keep memory flat. */
const BATCH_ROWS = 5_000;

export interface ExportFilter {
  organizationId: string;
  since: Date;
  /** Exclusive. */
  until?: Date;
  /** Model name. */
  model?: string;
  /** Start here (inclusive): a page cursor. */
  from?: ExportPosition;
}

/** How a batch's rows are joined: NDJSON lines, or the elements of a JSON array. */
export type ExportFormat = 'ndjson' | 'json-array';

/**
 * The prediction log in export order (predicted_at, id), read in keyset batches: each batch is one
 * short indexed query, so memory stays flat, no connection or transaction is held while the client
 * reads, and the embedded single-connection database keeps serving other requests in between.
 * Batches are read from the read replica when one is configured: an export whose range reaches
 * the last moments may miss the rows written in the replica's lag (at most DATABASE_READ_MAX_LAG,
 * 30 s by default, else the primary answers); each batch may come from a different server, which the
 * keyset order tolerates (a batch continues after the last row it got, never by an offset).
 */
@Injectable()
export class PredictionExportService {
  constructor(private readonly sql: SqlExecutor) {}

  /**
   * Up to `limit` rows (all when undefined). Postgres writes each record's JSON; the rows come back
   * as arrays and are packed into one Buffer per batch, so no string larger than a record is ever
   * built (large strings live until a full GC, which would inflate the process's memory).
   */
  async *batches(filter: ExportFilter, format: ExportFormat, limit?: number): AsyncGenerator<SerializedBatch> {
    const separator = format === 'ndjson' ? RECORD_SEPARATOR.newline : RECORD_SEPARATOR.comma;
    let remaining = limit ?? Number.POSITIVE_INFINITY;
    let position: { position: ExportPosition; inclusive: boolean } | undefined = filter.from && { position: filter.from, inclusive: true };
    while (remaining > 0) {
      const take = Math.min(BATCH_ROWS, remaining);
      const { statement, params } = exportBatch(rangeOf(filter, position), take);
      const rows = await this.sql.replica.arrays(statement, params);
      if (rows.length === 0) return;
      yield { bytes: packRecords(rows, separator), rows: rows.length };
      const [, lastId, lastPosition] = rows[rows.length - 1];
      position = { position: { predictedAt: lastPosition, id: lastId }, inclusive: false };
      remaining -= rows.length;
      if (rows.length < take) return;
    }
  }

  /** The first row after a page of `limit` rows: where the next page starts, if any row remains. */
  async nextPageStart(filter: ExportFilter, limit: number): Promise<ExportPosition | undefined> {
    const position = filter.from && { position: filter.from, inclusive: true };
    const { statement, params } = exportRowAt(rangeOf(filter, position), limit);
    const [row] = await this.sql.replica.arrays(statement, params);
    return row && { predictedAt: row[1], id: row[0] };
  }
}

function rangeOf(filter: ExportFilter, after: ExportRange['after']): ExportRange {
  return { organizationId: filter.organizationId, since: filter.since.toISOString(), until: filter.until?.toISOString() ?? 'infinity', model: filter.model, after };
}
