import { Injectable } from '@nestjs/common';
import { ModelsService, type ModelVersion } from '@foresight/models';
import { DAY_MS } from '@foresight/platform';
import { type DayHealth, HEALTH_DAYS, healthDays } from './daily-health';
import { type DriftState, driftState, type DriftStatus, MIN_DRIFT_SAMPLE } from './drift';
import { type LiveAccuracy, MIN_MATURED_PREDICTIONS, MonitoringQueriesService, type Snapshot } from './monitoring-queries.service';

/**
 * The drift block: SPEC's metric, delta and status, with whether a PSI was measured at all and on how
 * many predictions (status is `none` unless `state` is `measured`).
 */
export interface DriftFigures {
  metric: 'confidence_mean';
  delta: number;
  status: DriftStatus;
  state: DriftState;
  sampleSize: number;
  minimumSample: number;
}

/** GET /v1/models/monitor/{modelId}, plus the windows each figure covers. */
export interface MonitoringFigures {
  modelId: string;
  accuracy: number | null;
  accuracySource: 'live' | 'validation' | null;
  latencyMs: number | null;
  throughput: number;
  throughputUnit: 'predictions/min';
  drift: DriftFigures;
  psi: number | null;
  window: {
    latencyAndThroughputMinutes: 15;
    driftHours: 24;
    accuracyDays: 30;
    maturedPredictions: number;
    predictions24h: number;
    /** When the monitoring job last compared the serving version's confidences with its baseline; null before its first run. */
    driftComputedAt: string | null;
  };
}

export interface MonitoringPoint extends Omit<MonitoringFigures, 'modelId' | 'window'> {
  computedAt: string;
  version: number;
  maturedPredictions: number;
  predictions24h: number;
}

/** Accuracy from outcomes once enough predictions matured, else the serving version's validation accuracy. */
export function currentAccuracy(live: LiveAccuracy, serving: Pick<ModelVersion, 'metrics'> | null): { accuracy: number | null; source: 'live' | 'validation' | null } {
  if (live.matured >= MIN_MATURED_PREDICTIONS) return { accuracy: live.correct / live.matured, source: 'live' };
  return serving ? { accuracy: serving.metrics.accuracy, source: 'validation' } : { accuracy: null, source: null };
}

/** The read side of monitoring, for the API: live figures from the log, drift from the latest snapshot. */
@Injectable()
export class ModelMonitoringService {
  constructor(
    private readonly models: ModelsService,
    private readonly queries: MonitoringQueriesService,
  ) {}

  async current(organizationId: string, modelId: string): Promise<MonitoringFigures> {
    const now = new Date();
    const { serving } = await this.models.get(organizationId, modelId);
    const [live, load, snapshot] = await Promise.all([
      this.queries.liveAccuracy(organizationId, modelId, now),
      this.queries.latencyAndThroughput(organizationId, modelId, now),
      this.queries.latestSnapshot(organizationId, modelId),
    ]);
    const { accuracy, source } = currentAccuracy(live, serving);
    // A snapshot of an earlier version says nothing about the one serving now.
    const drift = snapshot && snapshot.versionId === serving?.id ? snapshot : undefined;
    return {
      modelId,
      accuracy,
      accuracySource: source,
      latencyMs: load.latencyP95Ms,
      throughput: load.perMinute,
      throughputUnit: 'predictions/min',
      ...driftOf(drift),
      window: {
        latencyAndThroughputMinutes: 15,
        driftHours: 24,
        accuracyDays: 30,
        maturedPredictions: live.matured,
        predictions24h: drift?.predictions24h ?? 0,
        driftComputedAt: drift?.computedAt.toISOString() ?? null,
      },
    };
  }

  /** The two-week health badge of models the caller already read within the organization, by model id. */
  async healthOverDays(organizationId: string, modelIds: string[], now = new Date()): Promise<Map<string, Array<{ day: string; health: DayHealth }>>> {
    const since = new Date(now.getTime() - (now.getTime() % DAY_MS) - (HEALTH_DAYS - 1) * DAY_MS);
    return healthDays(await this.queries.healthByDay(organizationId, modelIds, since), modelIds, now);
  }

  async history(organizationId: string, modelId: string, since: Date): Promise<MonitoringPoint[]> {
    await this.models.get(organizationId, modelId); // 404 for another organization's model
    return (await this.queries.history(organizationId, modelId, since)).map(toPoint);
  }
}

function toPoint(s: Snapshot): MonitoringPoint {
  return {
    computedAt: s.computedAt.toISOString(),
    version: s.version,
    accuracy: s.accuracy,
    accuracySource: s.accuracySource,
    latencyMs: s.latencyP95Ms,
    throughput: s.throughputPerMin,
    throughputUnit: 'predictions/min',
    ...driftOf(s),
    maturedPredictions: s.maturedPredictions,
    predictions24h: s.predictions24h,
  };
}

/**
 * A snapshot's drift as read now: a PSI on fewer than MIN_DRIFT_SAMPLE predictions (snapshots taken
 * while the minimum was lower) is no measurement.
 */
function driftOf(snapshot: Snapshot | undefined): { drift: DriftFigures; psi: number | null } {
  const state = driftState(snapshot?.predictions24h);
  const measured = state === 'measured';
  return {
    drift: {
      metric: 'confidence_mean',
      delta: snapshot?.driftDelta ?? 0,
      status: measured ? (snapshot?.driftStatus ?? 'none') : 'none',
      state,
      sampleSize: snapshot?.predictions24h ?? 0,
      minimumSample: MIN_DRIFT_SAMPLE,
    },
    psi: measured ? (snapshot?.psi ?? null) : null,
  };
}
