import { sqlStatement } from '@foresight/platform';
import type { HealthRow } from './daily-health';
import type { DriftStatus } from './drift';

/** A model's monitoring figures at one moment, as model_snapshots keeps them. */
export interface Snapshot {
  id: string;
  versionId: string;
  version: number;
  computedAt: Date;
  accuracy: number | null;
  accuracySource: 'live' | 'validation';
  maturedPredictions: number;
  latencyP95Ms: number | null;
  throughputPerMin: number;
  predictions24h: number;
  meanConfidence24h: number | null;
  driftDelta: number;
  psi: number | null;
  driftStatus: DriftStatus;
}

const SNAPSHOT_COLUMNS = `id::text, version_id AS "versionId", version, computed_at AS "computedAt", accuracy, accuracy_source AS "accuracySource",
  matured_predictions AS "maturedPredictions", latency_p95_ms AS "latencyP95Ms", throughput_per_min AS "throughputPerMin",
  predictions_24h AS "predictions24h", mean_confidence_24h AS "meanConfidence24h", drift_delta AS "driftDelta", psi, drift_status AS "driftStatus"`;

/** count(*) is a bigint: pg hands it over as text. */
export const LATENCY_AND_THROUGHPUT = sqlStatement<{ p95: number | null; n: string }, [organizationId: string, modelId: string, now: string, minutes: number]>(
  'predictions.latency-and-throughput',
  `SELECT percentile_cont(0.95) WITHIN GROUP (ORDER BY inference_ms) AS p95, count(*) AS n
     FROM predictions
    WHERE organization_id = $1 AND model_id = $2 AND predicted_at > $3::timestamptz - make_interval(mins => $4) AND predicted_at <= $3 AND scoring_run IS NULL`,
);

export const LIVE_ACCURACY = sqlStatement<{ matured: string; correct: string }, [organizationId: string, modelId: string, now: string, days: number]>(
  'predictions.live-accuracy',
  `SELECT count(*) AS matured, count(*) FILTER (WHERE predicted_positive = actual_positive) AS correct
     FROM prediction_outcomes WHERE organization_id = $1 AND model_id = $2 AND predicted_at > $3::timestamptz - make_interval(days => $4)`,
);

export const MATURED_PREDICTIONS = sqlStatement<
  { id: string; user_id: string; predicted_at: Date; positive: boolean },
  [organizationId: string, modelId: string, horizonDays: number, now: string, windowDays: number]
>(
  'predictions.matured-predictions',
  `SELECT p.id::text, p.user_id, p.predicted_at, p.positive FROM predictions p
    WHERE p.organization_id = $1 AND p.model_id = $2
      AND p.predicted_at > $4::timestamptz - make_interval(days => $5) AND p.predicted_at <= $4::timestamptz - make_interval(days => $3)
      AND p.scoring_run IS NULL AND NOT EXISTS (SELECT 1 FROM prediction_outcomes o WHERE o.organization_id = p.organization_id AND o.prediction_id = p.id)`,
);

export const INSERT_OUTCOMES = sqlStatement<
  never,
  [organizationId: string, modelId: string, ids: string[], users: string[], predictedAt: string[], positive: boolean[], actual: boolean[]]
>(
  'predictions.insert-outcomes',
  `INSERT INTO prediction_outcomes (prediction_id, organization_id, model_id, user_id, predicted_at, predicted_positive, actual_positive)
   SELECT id, $1, $2, user_id, predicted_at, positive, actual
     FROM unnest($3::bigint[], $4::text[], $5::timestamptz[], $6::boolean[], $7::boolean[]) AS o(id, user_id, predicted_at, positive, actual)
   ON CONFLICT (organization_id, prediction_id) DO NOTHING`,
);

export const CONFIDENCE_BUCKETS = sqlStatement<{ bucket: number; n: string; total: number }, [organizationId: string, versionId: string, bins: number, now: string]>(
  'predictions.confidence-buckets',
  `SELECT width_bucket(confidence, 0.5, 1.0, $3) AS bucket, count(*) AS n, sum(confidence) AS total
     FROM predictions
    WHERE organization_id = $1 AND version_id = $2 AND predicted_at > $4::timestamptz - interval '24 hours' AND predicted_at <= $4 AND scoring_run IS NULL
    GROUP BY 1`,
);

export const LATEST_SNAPSHOT = sqlStatement<Snapshot, [organizationId: string, modelId: string]>(
  'predictions.latest-snapshot',
  `SELECT ${SNAPSHOT_COLUMNS} FROM model_snapshots WHERE organization_id = $1 AND model_id = $2 ORDER BY computed_at DESC, id DESC LIMIT 1`,
);

export const SNAPSHOT_HISTORY = sqlStatement<Snapshot, [organizationId: string, modelId: string, since: string]>(
  'predictions.snapshot-history',
  `SELECT ${SNAPSHOT_COLUMNS} FROM model_snapshots WHERE organization_id = $1 AND model_id = $2 AND computed_at >= $3 ORDER BY computed_at, id LIMIT 10000`,
);

/**
 * The worst snapshot per model and UTC day since $3: failing when drift is high; degraded when drift
 * is moderate or live accuracy fell more than 5 points below the version's validation accuracy;
 * healthy when drift was measured (on at least $4 predictions) or live accuracy held; else -1, a
 * snapshot that could judge nothing.
 */
export const HEALTH_BY_DAY = sqlStatement<HealthRow, [organizationId: string, modelIds: string[], since: string, minimumDriftSample: number]>(
  'predictions.health-by-day',
  `SELECT s.model_id AS "modelId", date_trunc('day', s.computed_at, 'UTC') AS day,
          max(CASE WHEN s.predictions_24h >= $4 AND s.drift_status = 'high' THEN 2
                   WHEN (s.predictions_24h >= $4 AND s.drift_status = 'moderate')
                     OR (s.accuracy_source = 'live' AND s.accuracy < (v.metrics->>'accuracy')::float8 - 0.05) THEN 1
                   WHEN s.predictions_24h >= $4 OR s.accuracy_source = 'live' THEN 0
                   ELSE -1 END)::int AS severity
     FROM model_snapshots s LEFT JOIN model_versions v ON v.organization_id = s.organization_id AND v.id = s.version_id
    WHERE s.organization_id = $1 AND s.model_id = ANY($2::text[]) AND s.computed_at >= $3
    GROUP BY 1, 2`,
);

export const INSERT_SNAPSHOT = sqlStatement<
  { id: string },
  [
    organizationId: string,
    modelId: string,
    versionId: string,
    version: number,
    computedAt: string,
    accuracy: number | null,
    accuracySource: Snapshot['accuracySource'],
    maturedPredictions: number,
    latencyP95Ms: number | null,
    throughputPerMin: number,
    predictions24h: number,
    meanConfidence24h: number | null,
    driftDelta: number,
    psi: number | null,
    driftStatus: DriftStatus,
  ]
>(
  'predictions.insert-snapshot',
  `INSERT INTO model_snapshots (organization_id, model_id, version_id, version, computed_at, accuracy, accuracy_source, matured_predictions,
                                latency_p95_ms, throughput_per_min, predictions_24h, mean_confidence_24h, drift_delta, psi, drift_status)
   VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15) RETURNING id::text`,
);
