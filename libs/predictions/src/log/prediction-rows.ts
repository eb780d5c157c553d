import type { EntityManager } from 'typeorm';
import { copyInto } from '@foresight/platform';

/** One row of the prediction log: a served prediction, or one of a bulk scoring run's. */
export interface LoggedPrediction {
  organizationId: string;
  userId: string;
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
}

const COLUMNS = 'organization_id, user_id, model_id, model_name, version_id, version, label, positive, confidence, inference_ms, predicted_at, scoring_run';

const INSERT_SQL = `
  INSERT INTO predictions (${COLUMNS})
  SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::int[], $7::text[], $8::bool[], $9::float8[], $10::real[],
                       $11::timestamptz[], $12::text[])`;

/** Text quoted, so any user id or label travels as is. */
const COPY_SQL = `COPY predictions (${COLUMNS}) FROM STDIN WITH (FORMAT csv)`;

/**
 * The rows in one statement on the manager's connection: one COPY, PostgreSQL's bulk path (the
 * client sends text, not a parameter array per column, and the server writes a heap page at a time),
 * or on embedded PGlite, whose socket does not speak COPY FROM STDIN, one multi-row INSERT.
 */
export async function storePredictions(manager: EntityManager, rows: readonly LoggedPrediction[], embedded: boolean): Promise<void> {
  await (embedded ? insertPredictions(manager, rows) : copyPredictions(manager, rows));
}

async function insertPredictions(manager: EntityManager, rows: readonly LoggedPrediction[]): Promise<void> {
  const column = <K extends keyof LoggedPrediction>(key: K) => rows.map((row) => row[key]);
  await manager.query(INSERT_SQL, [
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
  ]);
}

async function copyPredictions(manager: EntityManager, rows: readonly LoggedPrediction[]): Promise<void> {
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
      `${csv(row.label)},${row.positive},${row.confidence},${row.inferenceMs},${predictedAt},${row.scoringRun === undefined ? '' : csv(row.scoringRun)}\n`;
  }
  await copyInto(manager, COPY_SQL, text);
}

function csv(value: string): string {
  return `"${value.replaceAll('"', '""')}"`;
}
