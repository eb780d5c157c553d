import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
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
  text: string;
  rows: number;
}

interface BatchRow {
  body: string | null;
  rows: string;
  last_id: string;
  last_position: string;
}

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
export class PredictionExport {
  constructor(private readonly dataSource: DataSource) {}

  /**
   * Up to `limit` rows (all when undefined), serialized by Postgres itself, one text value per
   * batch: the API process only forwards text, which keeps it fast and small.
   */
  async *batches(filter: ExportFilter, format: ExportFormat, limit?: number): AsyncGenerator<SerializedBatch> {
    const separator = format === 'ndjson' ? '\n' : ',';
    let remaining = limit ?? Number.POSITIVE_INFINITY;
    let position: { position: ExportPosition; inclusive: boolean } | undefined = filter.from && { position: filter.from, inclusive: true };
    while (remaining > 0) {
      const take = Math.min(BATCH_ROWS, remaining);
      const { sql, params } = this.query(filter, position, `ORDER BY predicted_at, id LIMIT ${take}`);
      params.push(separator);
      const [batch] = await this.dataSource.query<BatchRow[]>(
        `WITH batch AS MATERIALIZED (SELECT id, predicted_at, user_id, model_name, model_id, version, label, confidence ${sql})
         SELECT (SELECT string_agg(${RECORD_JSON}, $${params.length} ORDER BY predicted_at, id) FROM batch) AS body,
                (SELECT count(*) FROM batch) AS rows,
                last.id::text AS last_id, ${positionOf('last.predicted_at')} AS last_position
           FROM (SELECT id, predicted_at FROM batch ORDER BY predicted_at DESC, id DESC LIMIT 1) last`,
        params,
      );
      // No row at all: the outer query over the (empty) last row returns nothing.
      if (!batch || batch.body === null) return;
      const rows = Number(batch.rows);
      yield { text: batch.body, rows };
      position = { position: { predictedAt: batch.last_position, id: batch.last_id }, inclusive: false };
      remaining -= rows;
      if (rows < take) return;
    }
  }

  /** The first row after a page of `limit` rows: where the next page starts, if any row remains. */
  async nextPageStart(filter: ExportFilter, limit: number): Promise<ExportPosition | undefined> {
    const position = filter.from && { position: filter.from, inclusive: true };
    const { sql, params } = this.query(filter, position, `ORDER BY predicted_at, id OFFSET ${limit} LIMIT 1`);
    // Aliased: a bare "id" in ORDER BY would name this text output column and sort "10" before "9".
    const [row] = await this.dataSource.query<Array<{ next_id: string; position: string }>>(`SELECT id::text AS next_id, ${positionOf('predicted_at')} AS position ${sql}`, params);
    return row && { predictedAt: row.position, id: row.next_id };
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
