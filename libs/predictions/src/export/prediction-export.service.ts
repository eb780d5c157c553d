import { Injectable } from '@nestjs/common';
import { RawQueriesService } from '@foresight/platform';
import type { ExportPosition } from './export-cursor';

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

/** A batch already serialized: `rows` records joined for the format (no leading or trailing separator). */
export interface SerializedBatch {
  bytes: Buffer;
  rows: number;
}

/** [record JSON, id, position] */
type ExportRow = [string, string, string];

/** Aliased: a bare "id" in ORDER BY would name a text output column and sort "10" before "9". */
const ROW_ID = 'id::text AS row_id';

/** Cursors keep Postgres's full (microsecond) precision: two rows in one millisecond must not be confused. */
const positionOf = (column: string) => `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;

/**
 * One exported record as JSON text, assembled by concatenation (measured ~25% faster than
 * json_build_object): strings go through to_json, which escapes them; the other fields are
 * digits, a finite float8 (the column's CHECK keeps it in [0.5, 1]) and a fixed-format timestamp.
 */
const RECORD_JSON = `'{"id":"' || id || '","userId":' || to_json(user_id) || ',"model":' || to_json(model_name) || ',"modelId":' || to_json(model_id)
  || ',"version":' || version || ',"label":' || to_json(label) || ',"confidence":' || confidence
  || ',"timestamp":"' || to_char(predicted_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') || '"}'`;

/**
 * The prediction log in export order (predicted_at, id), read in keyset batches: each batch is one
 * short indexed query, so memory stays flat, no connection or transaction is held while the client
 * reads, and the embedded single-connection database keeps serving other requests in between.
 */
@Injectable()
export class PredictionExportService {
  constructor(private readonly queries: RawQueriesService) {}

  /**
   * Up to `limit` rows (all when undefined). Postgres writes each record's JSON; the rows come back
   * as arrays and are packed into one Buffer per batch, so no string larger than a record is ever
   * built (large strings live until a full GC, which would inflate the process's memory).
   */
  async *batches(filter: ExportFilter, format: ExportFormat, limit?: number): AsyncGenerator<SerializedBatch> {
    const separator = format === 'ndjson' ? 0x0a : 0x2c; // "\n" or ","
    let remaining = limit ?? Number.POSITIVE_INFINITY;
    let position: { position: ExportPosition; inclusive: boolean } | undefined = filter.from && { position: filter.from, inclusive: true };
    while (remaining > 0) {
      const take = Math.min(BATCH_ROWS, remaining);
      const { sql, params } = this.query(filter, position, `ORDER BY predicted_at, id LIMIT ${take}`);
      const rows = await this.queries.arrays<ExportRow>(`SELECT ${RECORD_JSON}, ${ROW_ID}, ${positionOf('predicted_at')} ${sql}`, params);
      if (rows.length === 0) return;
      yield { bytes: pack(rows, separator), rows: rows.length };
      const [, lastId, lastPosition] = rows[rows.length - 1];
      position = { position: { predictedAt: lastPosition, id: lastId }, inclusive: false };
      remaining -= rows.length;
      if (rows.length < take) return;
    }
  }

  /** The first row after a page of `limit` rows: where the next page starts, if any row remains. */
  async nextPageStart(filter: ExportFilter, limit: number): Promise<ExportPosition | undefined> {
    const position = filter.from && { position: filter.from, inclusive: true };
    const { sql, params } = this.query(filter, position, `ORDER BY predicted_at, id OFFSET ${limit} LIMIT 1`);
    const [row] = await this.queries.arrays<[id: string, position: string]>(`SELECT ${ROW_ID}, ${positionOf('predicted_at')} ${sql}`, params);
    return row && { predictedAt: row[1], id: row[0] };
  }

  private query(filter: ExportFilter, after: { position: ExportPosition; inclusive: boolean } | undefined, tail: string): { sql: string; params: unknown[] } {
    const params: unknown[] = [filter.organizationId, filter.since.toISOString(), filter.until?.toISOString() ?? 'infinity'];
    const where = ['organization_id = $1', 'predicted_at >= $2', 'predicted_at < $3'];
    if (filter.model !== undefined) {
      params.push(filter.model);
      where.push(`model_name = $${params.length}`);
    }
    if (after) {
      params.push(after.position.predictedAt, after.position.id);
      where.push(`(predicted_at, id) ${after.inclusive ? '>=' : '>'} ($${params.length - 1}::timestamptz, $${params.length}::bigint)`);
    }
    return { sql: `FROM predictions WHERE ${where.join(' AND ')} ${tail}`, params };
  }
}

/** The records joined by `separator` into one Buffer. */
function pack(rows: readonly ExportRow[], separator: number): Buffer {
  let size = rows.length - 1;
  for (const [record] of rows) size += Buffer.byteLength(record);
  const bytes = Buffer.allocUnsafe(size);
  let offset = 0;
  for (const [i, [record]] of rows.entries()) {
    if (i > 0) bytes[offset++] = separator;
    offset += bytes.write(record, offset);
  }
  return bytes;
}
