import { sqlStatement } from '@foresight/platform';

const COLUMNS = 'organization_id, user_id, model_id, model_name, version_id, version, label, positive, confidence, inference_ms, predicted_at, scoring_run, value, value_p10, value_p90';

/** The log's rows as one array per column, in COLUMNS order. */
export const INSERT_PREDICTIONS = sqlStatement<
  never,
  [
    organizationIds: string[],
    userIds: string[],
    modelIds: string[],
    modelNames: string[],
    versionIds: string[],
    versions: number[],
    labels: string[],
    positives: boolean[],
    confidences: number[],
    inferenceMs: number[],
    predictedAt: string[],
    scoringRuns: Array<string | null>,
    values: Array<number | null>,
    p10s: Array<number | null>,
    p90s: Array<number | null>,
  ]
>(
  'predictions.insert-predictions',
  `INSERT INTO predictions (${COLUMNS})
   SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::int[], $7::text[], $8::bool[], $9::float8[], $10::real[],
                        $11::timestamptz[], $12::text[], $13::float8[], $14::float8[], $15::float8[])`,
);

/** Text quoted, so any user id or label travels as is. */
export const COPY_PREDICTIONS = sqlStatement<never, []>('predictions.copy-predictions', `COPY predictions (${COLUMNS}) FROM STDIN WITH (FORMAT csv)`);

/**
 * The label of each user's latest logged prediction of each model: one step back along
 * predictions_user_model_idx per user, model and partition, however long each user's log has grown.
 */
export const LATEST_LABELS = sqlStatement<
  { user_id: string; model_id: string; label: string },
  [organizationId: string, users: readonly string[], modelIds: readonly string[], before: string | null]
>(
  'predictions.latest-labels',
  `SELECT u.user_id, m.model_id, p.label
     FROM unnest($2::text[]) AS u(user_id) CROSS JOIN unnest($3::text[]) AS m(model_id)
    CROSS JOIN LATERAL (
          SELECT label FROM predictions
           WHERE organization_id = $1 AND user_id = u.user_id AND model_id = m.model_id AND ($4::timestamptz IS NULL OR predicted_at < $4)
           ORDER BY predicted_at DESC, id DESC LIMIT 1) p`,
);
