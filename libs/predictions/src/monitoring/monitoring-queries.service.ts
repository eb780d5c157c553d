import { Injectable } from '@nestjs/common';
import { UserEventsService } from '@foresight/events';
import { DAY_MS, SqlExecutor, type SqlRunner, type SqlTarget } from '@foresight/platform';
import type { HealthRow } from './daily-health';
import { type BucketCount, MIN_DRIFT_SAMPLE } from './drift';
import {
  CONFIDENCE_BUCKETS,
  HEALTH_BY_DAY,
  INSERT_OUTCOMES,
  INSERT_SNAPSHOT,
  LATENCY_AND_THROUGHPUT,
  LATEST_SNAPSHOT,
  LIVE_ACCURACY,
  MATURED_PREDICTIONS,
  type Snapshot,
  SNAPSHOT_HISTORY,
} from './monitoring-queries.sql';

export type { Snapshot } from './monitoring-queries.sql';

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

export type NewSnapshot = Omit<Snapshot, 'id'> & { organizationId: string; modelId: string };

/**
 * The monitoring figures' SQL over the prediction log (written by every API process), outcomes and
 * snapshots. Figures read served predictions only: bulk scoring runs (scoring_run set) log every
 * active user daily, which would swamp latency, throughput, drift and the outcome matching.
 * Reads go to the read replica unless told otherwise: monitoring figures are aggregates over minutes
 * to days, and DATABASE_READ_MAX_LAG (30 s by default) is well within what they describe. The
 * monitoring run reads what it has just written (outcomes, its last snapshot) from the primary.
 */
@Injectable()
export class MonitoringQueriesService {
  constructor(
    private readonly sql: SqlExecutor,
    private readonly userEvents: UserEventsService,
  ) {}

  /** p95 of inference time and predictions per minute over the last RECENT_MINUTES, across all API processes. */
  async latencyAndThroughput(organizationId: string, modelId: string, now: Date): Promise<LatencyAndThroughput> {
    const [row] = await this.sql.replica.rows(LATENCY_AND_THROUGHPUT, [organizationId, modelId, now.toISOString(), RECENT_MINUTES]);
    return { latencyP95Ms: row.p95, perMinute: Number(row.n) / RECENT_MINUTES };
  }

  /** `on`: the primary right after matchOutcomes wrote outcomes. */
  async liveAccuracy(organizationId: string, modelId: string, now: Date, on: SqlTarget = 'replica'): Promise<LiveAccuracy> {
    const [row] = await this.runner(on).rows(LIVE_ACCURACY, [organizationId, modelId, now.toISOString(), ACCURACY_WINDOW_DAYS]);
    return { matured: Number(row.matured), correct: Number(row.correct) };
  }

  /**
   * Records, for each logged prediction whose horizon has passed (within the accuracy window)
   * and has no outcome yet, whether the user did the target event within the horizon after it
   * (UserEventsService decides what the user's events are). Idempotent per prediction.
   */
  async matchOutcomes(model: { id: string; organizationId: string; targetEvent: string | null; horizonDays: number }, now: Date): Promise<number> {
    const matured = await this.sql.rows(MATURED_PREDICTIONS, [model.organizationId, model.id, model.horizonDays, now.toISOString(), ACCURACY_WINDOW_DAYS]);
    if (matured.length === 0) return 0;
    const horizonMs = model.horizonDays * DAY_MS;
    // An inactivity model (no target event) predicts "no event at all": its outcome is that no event came.
    const came = await this.userEvents.reached(
      model.organizationId,
      model.targetEvent,
      matured.map((p) => ({ user: p.user_id, after: p.predicted_at, until: new Date(p.predicted_at.getTime() + horizonMs) })),
    );
    const reached = model.targetEvent === null ? came.map((some) => !some) : came;
    return this.sql.affected(INSERT_OUTCOMES, [
        model.organizationId,
        model.id,
        matured.map((p) => p.id),
        matured.map((p) => p.user_id),
        matured.map((p) => p.predicted_at.toISOString()),
        matured.map((p) => p.positive),
        reached,
    ]);
  }

  /** Confidences of the last 24 h served by one version, binned like the validation baseline. */
  async confidenceBuckets(organizationId: string, versionId: string, bins: number, now: Date): Promise<BucketCount[]> {
    const rows = await this.sql.replica.rows(CONFIDENCE_BUCKETS, [organizationId, versionId, bins, now.toISOString()]);
    return rows.map((r) => ({ bucket: r.bucket, count: Number(r.n), sum: r.total }));
  }

  /** `on`: the primary for the monitoring run, which compares with the snapshot it wrote last. */
  latestSnapshot(organizationId: string, modelId: string, on: SqlTarget = 'replica'): Promise<Snapshot | undefined> {
    return this.runner(on).first(LATEST_SNAPSHOT, [organizationId, modelId]);
  }

  history(organizationId: string, modelId: string, since: Date): Promise<Snapshot[]> {
    return this.sql.replica.rows(SNAPSHOT_HISTORY, [organizationId, modelId, since.toISOString()]);
  }

  /** HEALTH_BY_DAY's worst snapshot per model and UTC day since `since`. */
  healthByDay(organizationId: string, modelIds: string[], since: Date): Promise<HealthRow[]> {
    if (modelIds.length === 0) return Promise.resolve([]);
    return this.sql.replica.rows(HEALTH_BY_DAY, [organizationId, modelIds, since.toISOString(), MIN_DRIFT_SAMPLE]);
  }

  /** Through `tx`: the snapshot commits with what the run announces of it. */
  async insertSnapshot(tx: SqlRunner, s: NewSnapshot): Promise<string> {
    const [{ id }] = await tx.rows(INSERT_SNAPSHOT, [
      s.organizationId, s.modelId, s.versionId, s.version, s.computedAt.toISOString(), s.accuracy, s.accuracySource, s.maturedPredictions,
      s.latencyP95Ms, s.throughputPerMin, s.predictions24h, s.meanConfidence24h, s.driftDelta, s.psi, s.driftStatus,
    ]);
    return id;
  }

  private runner(on: SqlTarget): SqlRunner {
    return on === 'replica' ? this.sql.replica : this.sql;
  }
}
