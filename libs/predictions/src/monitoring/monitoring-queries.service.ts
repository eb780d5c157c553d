import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { UserEventsService } from '@foresight/events';
import { DAY_MS } from '@foresight/platform';
import type { HealthRow } from './daily-health';
import type { BucketCount, DriftStatus } from './drift';

/** Live accuracy counts the predictions of this many last days whose horizon has passed... */
const ACCURACY_WINDOW_DAYS = 30;
/** ...and needs at least this many of them; otherwise the serving version's validation accuracy stands. */
export const MIN_MATURED_PREDICTIONS = 50;
/** Latency and throughput are read over the last this many minutes. */
const RECENT_MINUTES = 15;

export interface LiveAccuracy {
  matured: number;
  correct: number;
}

export interface LatencyAndThroughput {
  latencyP95Ms: number | null;
  perMinute: number;
}

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

export type NewSnapshot = Omit<Snapshot, 'id'> & { organizationId: string; modelId: string };

const SNAPSHOT_COLUMNS = `id::text, version_id AS "versionId", version, computed_at AS "computedAt", accuracy, accuracy_source AS "accuracySource",
  matured_predictions AS "maturedPredictions", latency_p95_ms AS "latencyP95Ms", throughput_per_min AS "throughputPerMin",
  predictions_24h AS "predictions24h", mean_confidence_24h AS "meanConfidence24h", drift_delta AS "driftDelta", psi, drift_status AS "driftStatus"`;

/**
 * The monitoring figures' SQL over the prediction log (written by every API process), outcomes and
 * snapshots. Figures read served predictions only: bulk scoring runs (scoring_run set) log every
 * active user daily, which would swamp latency, throughput, drift and the outcome matching.
 */
@Injectable()
export class MonitoringQueriesService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly userEvents: UserEventsService,
  ) {}

  /** p95 of inference time and predictions per minute over the last RECENT_MINUTES, across all API processes. */
  async latencyAndThroughput(modelId: string, now: Date): Promise<LatencyAndThroughput> {
    const [row] = await this.dataSource.query<Array<{ p95: number | null; n: string }>>(
      `SELECT percentile_cont(0.95) WITHIN GROUP (ORDER BY inference_ms) AS p95, count(*) AS n
         FROM predictions WHERE model_id = $1 AND predicted_at > $2::timestamptz - make_interval(mins => $3) AND predicted_at <= $2 AND scoring_run IS NULL`,
      [modelId, now.toISOString(), RECENT_MINUTES],
    );
    return { latencyP95Ms: row.p95, perMinute: Number(row.n) / RECENT_MINUTES };
  }

  async liveAccuracy(modelId: string, now: Date): Promise<LiveAccuracy> {
    const [row] = await this.dataSource.query<Array<{ matured: string; correct: string }>>(
      `SELECT count(*) AS matured, count(*) FILTER (WHERE predicted_positive = actual_positive) AS correct
         FROM prediction_outcomes WHERE model_id = $1 AND predicted_at > $2::timestamptz - make_interval(days => $3)`,
      [modelId, now.toISOString(), ACCURACY_WINDOW_DAYS],
    );
    return { matured: Number(row.matured), correct: Number(row.correct) };
  }

  /**
   * Records, for each logged prediction whose horizon has passed (within the accuracy window)
   * and has no outcome yet, whether the user did the target event within the horizon after it
   * (UserEventsService decides what the user's events are). Idempotent per prediction.
   */
  async matchOutcomes(model: { id: string; organizationId: string; targetEvent: string; horizonDays: number }, now: Date): Promise<number> {
    const matured = await this.dataSource.query<Array<{ id: string; user_id: string; predicted_at: Date; positive: boolean }>>(
      `SELECT p.id::text, p.user_id, p.predicted_at, p.positive FROM predictions p
        WHERE p.organization_id = $1 AND p.model_id = $2
          AND p.predicted_at > $4::timestamptz - make_interval(days => $5) AND p.predicted_at <= $4::timestamptz - make_interval(days => $3)
          AND p.scoring_run IS NULL AND NOT EXISTS (SELECT 1 FROM prediction_outcomes o WHERE o.prediction_id = p.id)`,
      [model.organizationId, model.id, model.horizonDays, now.toISOString(), ACCURACY_WINDOW_DAYS],
    );
    if (matured.length === 0) return 0;
    const horizonMs = model.horizonDays * DAY_MS;
    const reached = await this.userEvents.reached(
      model.organizationId,
      model.targetEvent,
      matured.map((p) => ({ user: p.user_id, after: p.predicted_at, until: new Date(p.predicted_at.getTime() + horizonMs) })),
    );
    const [, inserted] = await this.dataSource.query<[unknown[], number]>(
      `INSERT INTO prediction_outcomes (prediction_id, organization_id, model_id, user_id, predicted_at, predicted_positive, actual_positive)
       SELECT id, $1, $2, user_id, predicted_at, positive, actual
         FROM unnest($3::bigint[], $4::text[], $5::timestamptz[], $6::boolean[], $7::boolean[]) AS o(id, user_id, predicted_at, positive, actual)
       ON CONFLICT (organization_id, prediction_id) DO NOTHING`,
      [
        model.organizationId,
        model.id,
        matured.map((p) => p.id),
        matured.map((p) => p.user_id),
        matured.map((p) => p.predicted_at.toISOString()),
        matured.map((p) => p.positive),
        reached,
      ],
    );
    return Number(inserted ?? 0);
  }

  /** Confidences of the last 24 h served by one version, binned like the validation baseline. */
  async confidenceBuckets(versionId: string, bins: number, now: Date): Promise<BucketCount[]> {
    const rows = await this.dataSource.query<Array<{ bucket: number; n: string; total: number }>>(
      `SELECT width_bucket(confidence, 0.5, 1.0, $2) AS bucket, count(*) AS n, sum(confidence) AS total
         FROM predictions WHERE version_id = $1 AND predicted_at > $3::timestamptz - interval '24 hours' AND predicted_at <= $3 AND scoring_run IS NULL
        GROUP BY 1`,
      [versionId, bins, now.toISOString()],
    );
    return rows.map((r) => ({ bucket: r.bucket, count: Number(r.n), sum: r.total }));
  }

  async latestSnapshot(organizationId: string, modelId: string): Promise<Snapshot | undefined> {
    const [row] = await this.dataSource.query<Snapshot[]>(
      `SELECT ${SNAPSHOT_COLUMNS} FROM model_snapshots WHERE organization_id = $1 AND model_id = $2 ORDER BY computed_at DESC, id DESC LIMIT 1`,
      [organizationId, modelId],
    );
    return row;
  }

  history(organizationId: string, modelId: string, since: Date): Promise<Snapshot[]> {
    return this.dataSource.query<Snapshot[]>(
      `SELECT ${SNAPSHOT_COLUMNS} FROM model_snapshots WHERE organization_id = $1 AND model_id = $2 AND computed_at >= $3 ORDER BY computed_at, id LIMIT 10000`,
      [organizationId, modelId, since.toISOString()],
    );
  }

  /**
   * The worst snapshot per model and UTC day since `since`: failing when drift is high; degraded when
   * drift is moderate or live accuracy fell more than 5 points below the version's validation accuracy.
   */
  healthByDay(organizationId: string, modelIds: string[], since: Date): Promise<HealthRow[]> {
    if (modelIds.length === 0) return Promise.resolve([]);
    return this.dataSource.query<HealthRow[]>(
      `SELECT s.model_id AS "modelId", date_trunc('day', s.computed_at, 'UTC') AS day,
              max(CASE WHEN s.drift_status = 'high' THEN 2
                       WHEN s.drift_status = 'moderate'
                         OR (s.accuracy_source = 'live' AND s.accuracy < (v.metrics->>'accuracy')::float8 - 0.05) THEN 1
                       ELSE 0 END)::int AS severity
         FROM model_snapshots s LEFT JOIN model_versions v ON v.id = s.version_id
        WHERE s.organization_id = $1 AND s.model_id = ANY($2::text[]) AND s.computed_at >= $3
        GROUP BY 1, 2`,
      [organizationId, modelIds, since.toISOString()],
    );
  }

  async insertSnapshot(s: NewSnapshot): Promise<string> {
    const [{ id }] = await this.dataSource.query<Array<{ id: string }>>(
      `INSERT INTO model_snapshots (organization_id, model_id, version_id, version, computed_at, accuracy, accuracy_source, matured_predictions,
                                    latency_p95_ms, throughput_per_min, predictions_24h, mean_confidence_24h, drift_delta, psi, drift_status)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15) RETURNING id::text`,
      [
        s.organizationId, s.modelId, s.versionId, s.version, s.computedAt.toISOString(), s.accuracy, s.accuracySource, s.maturedPredictions,
        s.latencyP95Ms, s.throughputPerMin, s.predictions24h, s.meanConfidence24h, s.driftDelta, s.psi, s.driftStatus,
      ],
    );
    return id;
  }
}
