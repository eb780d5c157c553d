import { Inject, Injectable } from '@nestjs/common';
import { Gauge, Registry } from 'prom-client';
import { CONFIDENCE_BIN_EDGES, type Model, ModelsService, type ModelVersion } from '@foresight/models';
import { DomainEventsService, LOGGER, type Logger, SqlExecutor } from '@foresight/platform';
import { compareWithBaseline, driftClimbed } from './drift';
import { currentAccuracy } from './model-monitoring.service';
import { MonitoringQueriesService } from './monitoring-queries.service';

/**
 * The scheduled monitoring job, for every serving model of every organization: record outcomes of
 * matured predictions, then snapshot accuracy, latency, throughput and drift, and announce
 * `drift.detected` when the drift status climbs to moderate or high.
 */
@Injectable()
export class MonitoringRunService {
  private readonly psiGauge: Gauge<'model_id'>;

  constructor(
    private readonly models: ModelsService,
    private readonly queries: MonitoringQueriesService,
    private readonly domainEvents: DomainEventsService,
    private readonly sql: SqlExecutor,
    registry: Registry,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {
    this.psiGauge = new Gauge({
      name: 'foresight_drift_psi',
      help: 'Population stability index of the last 24 h of confidences against the serving version baseline',
      labelNames: ['model_id'] as const,
      registers: [registry],
    });
  }

  /** Returns how many models were monitored; throws after trying all of them if any failed (BullMQ retries the job). */
  async runAll(): Promise<number> {
    const now = new Date();
    const serving = await this.models.servingInAllOrganizations();
    let failures = 0;
    for (const { model, serving: version } of serving) {
      try {
        await this.monitor(model, version, now);
      } catch (error) {
        // One model's failure must not hide the others' figures.
        failures++;
        this.logger.error({ err: error, modelId: model.id }, 'monitoring a model failed');
      }
    }
    if (failures > 0) throw new Error(`monitoring failed for ${failures} of ${serving.length} models`);
    return serving.length;
  }

  private async monitor(model: Model, version: ModelVersion, now: Date): Promise<void> {
    const outcomes = await this.queries.matchOutcomes(model, now);
    const [live, load, buckets, previous] = await Promise.all([
      this.queries.liveAccuracy(model.organizationId, model.id, now, 'primary'),
      this.queries.latencyAndThroughput(model.organizationId, model.id, now),
      this.queries.confidenceBuckets(model.organizationId, version.id, CONFIDENCE_BIN_EDGES.length - 1, now),
      this.queries.latestSnapshot(model.organizationId, model.id, 'primary'),
    ]);
    const { accuracy, source } = currentAccuracy(live, version);
    const drift = compareWithBaseline(buckets, version.confidenceBaseline);
    const previousStatus = previous?.versionId === version.id ? previous.driftStatus : undefined;
    // The snapshot and its drift.detected commit together: a run that dies after the commit leaves the
    // event to the outbox's resumer (the next run compares with this snapshot and would not announce it).
    const announced = await this.sql.transaction(async (tx) => {
      const snapshotId = await this.queries.insertSnapshot(tx, {
        organizationId: model.organizationId,
        modelId: model.id,
        versionId: version.id,
        version: version.version,
        computedAt: now,
        accuracy,
        accuracySource: source ?? 'validation',
        maturedPredictions: live.matured,
        latencyP95Ms: load.latencyP95Ms,
        throughputPerMin: load.perMinute,
        predictions24h: drift.predictions,
        meanConfidence24h: drift.meanConfidence,
        driftDelta: drift.delta,
        psi: drift.psi,
        driftStatus: drift.status,
      });
      if (!driftClimbed(previousStatus, drift.status)) return [];
      const data = { modelId: model.id, model: model.name, version: version.version, status: drift.status, psi: drift.psi as number, delta: drift.delta };
      return this.domainEvents.stage(tx, model.organizationId, 'drift.detected', [{ data, dedupeKey: `snapshot-${snapshotId}` }]);
    });
    await this.domainEvents.queueStaged(announced);
    if (drift.psi !== null) this.psiGauge.set({ model_id: model.id }, drift.psi);
    this.logger.info({ modelId: model.id, outcomes, driftStatus: drift.status, psi: drift.psi }, 'model monitored');
  }
}
