import { batchedDelete, sqlStatement } from '@foresight/platform';

/** Each prediction with its outcome once its horizon has passed (`outcome` null before). */
export const USER_PREDICTIONS = sqlStatement<Record<string, unknown>, [organizationId: string, userId: string]>(
  'predictions.user-predictions',
  `SELECT p.id::text, p.model_id AS "modelId", p.model_name AS model, p.version, p.label, p.confidence, p.inference_ms AS "inferenceMs",
          p.predicted_at AS timestamp,
          p.value, CASE WHEN p.value IS NULL THEN NULL ELSE json_build_object('p10', p.value_p10, 'p90', p.value_p90) END AS interval,
          CASE WHEN o.prediction_id IS NULL THEN NULL
               ELSE json_build_object('didTargetEvent', o.actual_positive, 'correct', o.predicted_positive = o.actual_positive, 'evaluatedAt', o.evaluated_at)
          END AS outcome
     FROM predictions p LEFT JOIN prediction_outcomes o ON o.organization_id = p.organization_id AND o.prediction_id = p.id
    WHERE p.organization_id = $1 AND p.user_id = $2
    ORDER BY p.predicted_at, p.id`,
);

export const ERASE_USER_OUTCOMES = sqlStatement<never, [organizationId: string, userId: string]>(
  'predictions.erase-user-outcomes',
  `DELETE FROM prediction_outcomes WHERE organization_id = $1 AND user_id = $2`,
);

export const ERASE_USER_PREDICTIONS = sqlStatement<never, [organizationId: string, userId: string]>(
  'predictions.erase-user-predictions',
  `DELETE FROM predictions WHERE organization_id = $1 AND user_id = $2`,
);

export const EXPIRE_OUTCOMES = batchedDelete<[organizationId: string, before: string]>('predictions.expire-outcomes', 'prediction_outcomes', 'organization_id = $1 AND predicted_at < $2');

export const EXPIRE_PREDICTIONS = batchedDelete<[organizationId: string, before: string]>('predictions.expire-predictions', 'predictions', 'organization_id = $1 AND predicted_at < $2');

/** count(*) is a bigint: pg hands it over as text. */
export const USER_PREDICTION_ROWS = sqlStatement<{ n: string }, [organizationId: string, userId: string]>(
  'predictions.user-prediction-rows',
  `SELECT (SELECT count(*) FROM predictions WHERE organization_id = $1 AND user_id = $2)
        + (SELECT count(*) FROM prediction_outcomes WHERE organization_id = $1 AND user_id = $2) AS n`,
);
