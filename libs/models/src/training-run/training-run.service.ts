import { Inject, Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Counter, Registry } from 'prom-client';
import { DataSource, Repository } from 'typeorm';
import { type DomainEvent, DomainEventsService, LOGGER, type Logger, newId, SqlExecutor } from '@foresight/platform';
import { type PredictionTarget, predictionTargetOf } from '../dataset/training-target';
import { Model } from '../registry/model.entity';
import { ModelVersion, type VersionState } from '../registry/model-version.entity';
import { ModelsService } from '../registry/models.service';
import type { VersionTarget } from '../registry/version-target';
import type { TrainedModel } from '../training';
import { type TrainedInProcess, trainInProcess } from './train-in-process';
import { CLAIM_TRAINING, FAIL_TRAINING, LOCK_TRAINING_HOLDER, NEXT_VERSION } from './training-run.sql';

/** A challenger serves only if its validation AUC is at least the serving version's minus this. */
export const PROMOTION_AUC_TOLERANCE = 0.005;

export interface TrainingJob {
  organizationId: string;
  modelId: string;
  startedAt: string;
}

/**
 * One training run: build the matrix and fit it in a process of its own, store the version, promote it
 * if it is good enough, and move the model out of `retraining` whatever happens.
 */
@Injectable()
export class TrainingRunService {
  private readonly runs: Counter<'algorithm' | 'result'>;

  constructor(
    private readonly dataSource: DataSource,
    private readonly sql: SqlExecutor,
    @InjectRepository(Model) private readonly models: Repository<Model>,
    private readonly domainEvents: DomainEventsService,
    private readonly modelRegistry: ModelsService,
    @Inject(LOGGER) private readonly logger: Logger,
    registry: Registry,
  ) {
    this.runs = new Counter({
      name: 'foresight_training_runs_total',
      help: 'Finished training runs by algorithm and result (promoted, rejected, failed)',
      labelNames: ['algorithm', 'result'] as const,
      registers: [registry],
    });
  }

  /** As the job holding `lockToken`: the version is stored only while the job still holds the run (another worker may have taken a stalled run over). */
  async run(job: TrainingJob, lockToken: string): Promise<void> {
    const model = await this.models.findOneBy({ id: job.modelId, organizationId: job.organizationId });
    const claimed = model && (await this.sql.first(CLAIM_TRAINING, [job.modelId, job.organizationId, job.startedAt, lockToken]));
    if (!model || !claimed) {
      this.logger.warn({ modelId: job.modelId }, 'training job is stale (model deleted or run superseded); skipped');
      return;
    }
    const startedAt = Date.now();
    this.logger.info({ modelId: model.id }, 'training run started');
    try {
      const target = predictionTargetOf(model);
      const { dataset, model: trained, seconds, peakRssMiB } = await trainInProcess({
        model: { organizationId: model.organizationId, target, horizonDays: model.horizonDays },
        fit: { algorithm: model.algorithm },
      });
      const trainedAt = Date.now();
      const stored = await this.store(model, lockToken, {
        algorithm: trained.algorithm,
        onnx: Buffer.from(trained.onnx),
        manifest: dataset.manifest,
        metrics: trained.metrics,
        featureImportance: trained.featureImportance,
        confidenceBaseline: trained.confidenceBaseline,
        curves: trained.curves,
        target: versionTarget(target, dataset, trained),
        windowStart: new Date(dataset.plan.windowStart),
        windowEnd: new Date(dataset.plan.windowEnd),
        trainRows: trained.trainRows,
        validationRows: dataset.validationRows,
      });
      this.logger.info(
        {
          modelId: model.id,
          auc: trained.metrics.auc,
          calibrationError: trained.metrics.calibrationError,
          hyperparameters: trained.hyperparameters,
          candidatesTried: trained.candidatesTried,
          trainedOn: dataset.manifest.trainedOn,
          seconds: (Date.now() - startedAt) / 1000,
          // Where the run's time went: the matrix (events read, features), the fit (search, calibration, ONNX), storing.
          phaseSeconds: { ...seconds, store: (Date.now() - trainedAt) / 1000 },
          matrixSeconds: dataset.stepSeconds,
          trainingPeakRssMiB: Math.round(peakRssMiB),
        },
        'training run finished',
      );
      this.runs.inc({ algorithm: model.algorithm, result: stored.state === 'serving' ? 'promoted' : 'rejected' });
      await this.domainEvents.queueStaged(stored.announced);
      // Named by the version: a repeated step queues one run.
      if (stored.state === 'serving') await this.modelRegistry.scoreAfterPromotion(model.organizationId, model.id, `scr_promotion_${stored.id}`);
    } catch (error) {
      // The run's new holder stores its version, or fails it; nothing of this one is kept.
      if (error instanceof LostTrainingLockError) throw error;
      await this.fail(job, error instanceof Error ? error.message : String(error));
    }
  }

  /**
   * Also called after the last attempt failed outside run() (a crashed or stalled worker). The model
   * leaves `retraining` and its model.failed is staged in one transaction: a process that dies between
   * them and the job leaves the event to the outbox's resumer, and a second call finds nothing to fail.
   */
  async fail(job: TrainingJob, reason: string): Promise<void> {
    this.logger.warn({ modelId: job.modelId, reason }, 'training run failed');
    const failed = await this.sql.transaction(async (tx) => {
      const row = await tx.first(FAIL_TRAINING, [job.modelId, job.organizationId, reason]);
      if (!row) return undefined;
      const data = { modelId: job.modelId, model: row.name, error: reason };
      return { algorithm: row.algorithm, announced: await this.domainEvents.stage(tx, job.organizationId, 'model.failed', [{ data, dedupeKey: `${job.modelId}:${job.startedAt}` }]) };
    });
    if (!failed) return;
    this.runs.inc({ algorithm: failed.algorithm, result: 'failed' });
    await this.domainEvents.queueStaged(failed.announced);
  }

  /**
   * The version, its promotion and its model.retrained (staged in the outbox) in one transaction, while
   * the job still holds the run: a process that dies after the commit leaves the event to the outbox's
   * resumer, and the job's retry finds the run over.
   */
  private async store(
    model: Model,
    lockToken: string,
    version: Omit<ModelVersion, 'id' | 'modelId' | 'organizationId' | 'version' | 'state' | 'rejectionReason' | 'createdAt'>,
  ): Promise<Pick<ModelVersion, 'id' | 'version' | 'state' | 'rejectionReason'> & { announced: DomainEvent[] }> {
    return this.dataSource.transaction(async (manager) => {
      const tx = this.sql.within(manager);
      if (!(await tx.first(LOCK_TRAINING_HOLDER, [model.id, model.organizationId, lockToken]))) throw new LostTrainingLockError(model.id);
      const serving = model.servingVersionId ? await manager.findOneBy(ModelVersion, { id: model.servingVersionId, organizationId: model.organizationId }) : null;
      const promote = !serving || version.metrics.auc >= serving.metrics.auc - PROMOTION_AUC_TOLERANCE;
      const [{ next }] = await tx.rows(NEXT_VERSION, [model.organizationId, model.id]);
      const state: VersionState = promote ? 'serving' : 'rejected';
      const id = newId('ver');
      const rejectionReason = promote
        ? null
        : `validation AUC ${version.metrics.auc.toFixed(4)} is below the serving version's ${(serving?.metrics.auc ?? 0).toFixed(4)} minus ${PROMOTION_AUC_TOLERANCE}`;
      await manager.insert(ModelVersion, { ...version, id, modelId: model.id, organizationId: model.organizationId, version: next, state, rejectionReason });
      if (promote && serving) await manager.update(ModelVersion, { id: serving.id, organizationId: model.organizationId }, { state: 'retired' });
      await manager.update(
        Model,
        { id: model.id, organizationId: model.organizationId },
        { status: 'active', servingVersionId: promote ? id : model.servingVersionId, lastRetrainedAt: new Date(), lastError: null },
      );
      const retrained = {
        modelId: model.id,
        model: model.name,
        version: Number(next),
        promoted: promote,
        auc: version.metrics.auc,
        accuracy: version.metrics.accuracy,
        rejectionReason,
      };
      const announced = await this.domainEvents.stage(tx, model.organizationId, 'model.retrained', [{ data: retrained, dedupeKey: id }]);
      return { id, version: Number(next), state, rejectionReason, announced };
    });
  }
}

/** What serving needs of the version beyond its graph, by kind. */
function versionTarget(target: PredictionTarget, dataset: TrainedInProcess['dataset'], trained: TrainedModel): VersionTarget | null {
  if (target.kind === 'inactivity') {
    const { rows, churned } = dataset.dormant ?? { rows: 0, churned: 0 };
    // Laplace's rule: never exactly 0 or 1 (the answer's log-odds stay finite), and 0.5 with no such row seen.
    return { kind: 'inactivity', activeDays: target.activeDays, dormant: { rows, churnRate: (churned + 1) / (rows + 2) } };
  }
  if (target.kind === 'value' && trained.amount) return { kind: 'value', valueProperty: target.valueProperty, spread: trained.amount.spread };
  return null;
}

/** A training job's version refused: another job holds the model's run now (this one lost its lock). */
export class LostTrainingLockError extends Error {
  constructor(modelId: string) {
    super(`training run of ${modelId}: taken over by another worker; this attempt's version is not stored`);
  }
}
