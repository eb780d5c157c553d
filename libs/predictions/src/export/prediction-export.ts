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

/** Exported prediction record (SPEC), plus the additive label, modelId, version and id. */
export interface ExportedPrediction {
  id: string;
  userId: string;
  model: string;
  modelId: string;
  version: number;
  label: string;
  confidence: number;
  timestamp: string;
}

interface ExportRow {
  id: string;
  position: string;
  user_id: string;
  model_name: string;
  model_id: string;
  version: number;
  label: string;
  confidence: number;
  ts: string;
}

const TIMESTAMP = `to_char(predicted_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
/** Cursors keep Postgres's full (microsecond) precision: two rows in one millisecond must not be confused. */
const POSITION = `to_char(predicted_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;

/**
 * The prediction log in export order (predicted_at, id), read in keyset batches: each batch is one
 * short indexed query, so memory stays flat, no connection or transaction is held while the client
 * reads, and the embedded single-connection database keeps serving other requests in between.
 */
@Injectable()
export class PredictionExport {
  constructor(private readonly dataSource: DataSource) {}

  /** Up to `limit` rows (all when undefined), in batches. */
  async *batches(filter: ExportFilter, limit?: number): AsyncGenerator<ExportedPrediction[]> {
    let remaining = limit ?? Number.POSITIVE_INFINITY;
    let position: { position: ExportPosition; inclusive: boolean } | undefined = filter.from && { position: filter.from, inclusive: true };
    while (remaining > 0) {
      const take = Math.min(BATCH_ROWS, remaining);
      const { sql, params } = this.query(filter, position, `ORDER BY predicted_at, id LIMIT ${take}`);
      const rows = await this.dataSource.query<ExportRow[]>(`SELECT id::text, user_id, model_name, model_id, version, label, confidence, ${TIMESTAMP} AS ts, ${POSITION} AS position ${sql}`, params);
      if (rows.length === 0) return;
      yield rows.map(toExported);
      const last = rows[rows.length - 1];
      position = { position: { predictedAt: last.position, id: last.id }, inclusive: false };
      remaining -= rows.length;
      if (rows.length < take) return;
    }
  }

  /** The first row after a page of `limit` rows: where the next page starts, if any row remains. */
  async nextPageStart(filter: ExportFilter, limit: number): Promise<ExportPosition | undefined> {
    const position = filter.from && { position: filter.from, inclusive: true };
    const { sql, params } = this.query(filter, position, `ORDER BY predicted_at, id OFFSET ${limit} LIMIT 1`);
    const [row] = await this.dataSource.query<Array<{ id: string; position: string }>>(`SELECT id::text, ${POSITION} AS position ${sql}`, params);
    return row && { predictedAt: row.position, id: row.id };
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

function toExported(row: ExportRow): ExportedPrediction {
  return {
    id: row.id,
    userId: row.user_id,
    model: row.model_name,
    modelId: row.model_id,
    version: row.version,
    label: row.label,
    confidence: row.confidence,
    timestamp: row.ts,
  };
}
