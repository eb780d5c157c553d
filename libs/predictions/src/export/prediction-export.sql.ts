import { type SqlStatement, sqlStatement } from '@foresight/platform';
import type { ExportPosition } from './export-cursor';

/** [record JSON, id, position] */
export type ExportRow = [record: string, id: string, position: string];

/** The rows an export reads: an organization's predictions in [since, until), of one model or all, from a position on. */
export interface ExportRange {
  organizationId: string;
  since: string;
  until: string;
  /** Model name. */
  model?: string;
  after?: { position: ExportPosition; inclusive: boolean };
}

type ExportParams = [organizationId: string, since: string, until: string, ...rest: string[]];

/** Aliased: a bare "id" in ORDER BY would name a text output column and sort "10" before "9". */
const ROW_ID = 'id::text AS row_id';

/** Cursors keep Postgres's full (microsecond) precision: two rows in one millisecond must not be confused. */
const positionOf = (column: string) => `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;

/**
 * One exported record as JSON text, assembled by concatenation (measured ~25% faster than
 * json_build_object): strings go through to_json, which escapes them; the other fields are
 * digits, finite float8s (the confidence column's CHECK keeps it in [0.5, 1]; a `value` model's row adds its
 * expected sum and interval) and a fixed-format timestamp.
 */
const RECORD_JSON = `'{"id":"' || id || '","userId":' || to_json(user_id) || ',"model":' || to_json(model_name) || ',"modelId":' || to_json(model_id)
  || ',"version":' || version || ',"label":' || to_json(label) || ',"confidence":' || confidence
  || CASE WHEN value IS NULL THEN '' ELSE ',"value":' || value || ',"interval":{"p10":' || value_p10 || ',"p90":' || value_p90 || '}' END
  || ',"timestamp":"' || to_char(predicted_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') || '"}'`;

/** Up to `take` rows of the range in export order (predicted_at, id), each as ExportRow. */
export function exportBatch(range: ExportRange, take: number): { statement: SqlStatement<ExportRow, ExportParams>; params: ExportParams } {
  const { where, params } = rangeOf(range);
  return {
    statement: sqlStatement('predictions.export-batch', `SELECT ${RECORD_JSON}, ${ROW_ID}, ${positionOf('predicted_at')} FROM predictions WHERE ${where} ORDER BY predicted_at, id LIMIT ${take}`),
    params,
  };
}

/** The row `offset` rows into the range: where the page after `offset` rows starts. */
export function exportRowAt(range: ExportRange, offset: number): { statement: SqlStatement<[id: string, position: string], ExportParams>; params: ExportParams } {
  const { where, params } = rangeOf(range);
  return {
    statement: sqlStatement('predictions.export-row-at', `SELECT ${ROW_ID}, ${positionOf('predicted_at')} FROM predictions WHERE ${where} ORDER BY predicted_at, id OFFSET ${offset} LIMIT 1`),
    params,
  };
}

/** Only the conditions that apply, so each shape is planned for its own index path. */
function rangeOf(range: ExportRange): { where: string; params: ExportParams } {
  const params: ExportParams = [range.organizationId, range.since, range.until];
  const where = ['organization_id = $1', 'predicted_at >= $2', 'predicted_at < $3'];
  if (range.model !== undefined) {
    params.push(range.model);
    where.push(`model_name = $${params.length}`);
  }
  if (range.after) {
    params.push(range.after.position.predictedAt, range.after.position.id);
    where.push(`(predicted_at, id) ${range.after.inclusive ? '>=' : '>'} ($${params.length - 1}::timestamptz, $${params.length}::bigint)`);
  }
  return { where: where.join(' AND '), params };
}
