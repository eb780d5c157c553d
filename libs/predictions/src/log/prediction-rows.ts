import type { EntityManager } from 'typeorm';
import type { StoredUserId } from '@foresight/events';
import type { ValueEstimate } from '@foresight/models';
import type { SqlExecutor } from '@foresight/platform';
import { COPY_PREDICTIONS, INSERT_PREDICTIONS } from './prediction-log.sql';

/** One row of the prediction log: a served prediction, or one of a bulk scoring run's. */
export interface LoggedPrediction {
  organizationId: string;
  userId: StoredUserId;
  modelId: string;
  modelName: string;
  versionId: string;
  version: number;
  label: string;
  positive: boolean;
  confidence: number;
  inferenceMs: number;
  predictedAt: Date;
  /** The bulk scoring run that wrote the row; absent for a served prediction. */
  scoringRun?: string;
  /** A `value` model's expected sum and p10-p90 interval. */
  value?: ValueEstimate;
  /** An `inactivity` model's user not active within its activeDays: answered with such users' churn rate, not the model's score. */
  dormant?: true;
}

/**
 * The rows in one statement on the connection of the manager's transaction: one COPY, PostgreSQL's bulk path (the
 * client sends text, not a parameter array per column, and the server writes a heap page at a time),
 * or on embedded PGlite, whose socket does not speak COPY FROM STDIN, one multi-row INSERT.
 */
export async function storePredictions(sql: SqlExecutor, manager: EntityManager, rows: readonly LoggedPrediction[], embedded: boolean): Promise<void> {
  await (embedded ? insertPredictions(sql, manager, rows) : copyPredictions(sql, manager, rows));
}

async function insertPredictions(sql: SqlExecutor, manager: EntityManager, rows: readonly LoggedPrediction[]): Promise<void> {
  const column = <K extends keyof LoggedPrediction>(key: K) => rows.map((row) => row[key]);
  await sql.within(manager).affected(INSERT_PREDICTIONS, [
    column('organizationId'),
    column('userId'),
    column('modelId'),
    column('modelName'),
    column('versionId'),
    column('version'),
    column('label'),
    column('positive'),
    column('confidence'),
    column('inferenceMs'),
    rows.map((row) => row.predictedAt.toISOString()),
    rows.map((row) => row.scoringRun ?? null),
    rows.map((row) => row.value?.value ?? null),
    rows.map((row) => row.value?.p10 ?? null),
    rows.map((row) => row.value?.p90 ?? null),
  ]);
}

async function copyPredictions(sql: SqlExecutor, manager: EntityManager, rows: readonly LoggedPrediction[]): Promise<void> {
  let text = '';
  // A run's rows share one Date: formatted once, not once per row.
  let instant: Date | undefined;
  let predictedAt = '';
  for (const row of rows) {
    if (row.predictedAt !== instant) {
      instant = row.predictedAt;
      predictedAt = instant.toISOString();
    }
    text +=
      `${csv(row.organizationId)},${csv(row.userId)},${csv(row.modelId)},${csv(row.modelName)},${csv(row.versionId)},${row.version},` +
      `${csv(row.label)},${row.positive},${row.confidence},${row.inferenceMs},${predictedAt},${row.scoringRun === undefined ? '' : csv(row.scoringRun)},` +
      // Unquoted empty fields are NULL in COPY's csv format.
      `${row.value ? `${row.value.value},${row.value.p10},${row.value.p90}` : ',,'}\n`;
  }
  await sql.copyIn(manager, COPY_PREDICTIONS, text);
}

function csv(value: string): string {
  return `"${value.replaceAll('"', '""')}"`;
}
