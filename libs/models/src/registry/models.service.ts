import { InjectQueue } from '@nestjs/bullmq';
import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import type { Queue } from 'bullmq';
import { IsNull, LessThan, Not, Repository } from 'typeorm';
import type { FeatureManifest } from '@foresight/features';
import {
  contractJob,
  invalidRequest,
  type JobPayloads,
  JOBS,
  type KeptJobScheduler,
  minuteSchedule,
  newId,
  notFound,
  postgresErrorCode,
  QUEUES,
  RedisAvailabilityService,
  SCHEDULE_TIME_ZONE,
  scoringRunJob,
  SqlExecutor,
} from '@foresight/platform';
import { Model } from './model.entity';
import type { CreateModel, UpdateModel } from './model.schema';
import { ModelVersion } from './model-version.entity';
import { SERVE_VERSION, SERVING_VERSIONS, START_RETRAINING } from './models.sql';
import type { VersionTarget } from './version-target';

export interface ModelWithVersion {
  model: Model;
  serving: ModelVersion | null;
}

/** What serving needs to know about a model whose version serves. */
export interface ServingVersionRef {
  modelId: string;
  name: string;
  labels: [negative: string, positive: string];
  versionId: string;
}

/** A version's inference artifact: ONNX bytes, the manifest that orders its inputs, and what its kind needs beside. */
export interface VersionArtifact {
  version: number;
  manifest: FeatureManifest;
  onnx: Buffer;
  target: VersionTarget | null;
}

export interface RetrainStarted {
  modelId: string;
  status: 'retraining';
  startedAt: Date;
}

const UNIQUE_VIOLATION = '23505';

/**
 * A scheduled run is skipped when the model's last run started less than this long ago: a job scheduler
 * registered by an older release with a seconds field must not start runs faster than once a minute.
 */
const MIN_SCHEDULED_INTERVAL_MS = 50_000;

/** A model retraining this long may have lost its run's job with Redis: queued again, a job Redis still holds is kept. */
const RESUME_RUN_AFTER_MS = 60_000;

/**
 * A training run as queued, named by model and start: a job of an earlier start that reached Redis
 * although its answer was lost (a failover) must not make BullMQ drop this one as a duplicate; it
 * skips itself as stale.
 */
function trainJob(organizationId: string, modelId: string, startedAt: Date) {
  return contractJob(JOBS.training.train, { organizationId, modelId, startedAt: startedAt.toISOString() }, `${modelId}.${startedAt.getTime()}`);
}

/** The BullMQ job scheduler of a model's `schedule`. */
const scheduleId = (modelId: string) => `model-schedule:${modelId}`;

type RetrainingScheduler = KeptJobScheduler & { template: { data: JobPayloads[typeof JOBS.training.scheduledRetrain] } };

/** The job scheduler that fires a model's retraining, at most once a minute; null when it has no schedule. */
function jobSchedulerOf(model: Pick<Model, 'id' | 'organizationId' | 'schedule'>): RetrainingScheduler | null {
  const pattern = model.schedule === null ? null : minuteSchedule(model.schedule);
  if (pattern === null) return null;
  return {
    id: scheduleId(model.id),
    repeat: { pattern, tz: SCHEDULE_TIME_ZONE },
    template: { name: JOBS.training.scheduledRetrain, data: { organizationId: model.organizationId, modelId: model.id } },
  };
}

type TrainingQueue = Queue<JobPayloads[typeof JOBS.training.train] | JobPayloads[typeof JOBS.training.scheduledRetrain]>;

/** The model registry: every query is scoped by the caller's organization. */
@Injectable()
export class ModelsService {
  constructor(
    @InjectRepository(Model) private readonly models: Repository<Model>,
    @InjectRepository(ModelVersion) private readonly versions: Repository<ModelVersion>,
    @InjectQueue(QUEUES.training) private readonly trainingQueue: TrainingQueue,
    @InjectQueue(QUEUES.scoring) private readonly scoringQueue: Queue<JobPayloads[typeof JOBS.scoring.scoreUsers]>,
    private readonly redis: RedisAvailabilityService,
    private readonly sql: SqlExecutor,
  ) {}

  async create(organizationId: string, input: CreateModel): Promise<ModelWithVersion> {
    const model = this.models.create({
      id: newId('mdl'),
      organizationId,
      ...input,
      labels: [...input.labels],
      status: 'untrained',
      servingVersionId: null,
      lastError: null,
      retrainStartedAt: null,
      lastRetrainedAt: null,
    });
    if (model.schedule) this.redis.assertUp('register the retraining schedule');
    // The unique (organization_id, name) key decides, so requests racing with one name get the answer
    // a later duplicate gets, never a 500.
    await this.models.insert(model).catch((error: unknown) => {
      if (postgresErrorCode(error) !== UNIQUE_VIOLATION) throw error;
      throw invalidRequest(`name: a model named "${input.name}" already exists`, [{ path: 'name', message: 'already exists' }]);
    });
    if (model.schedule) {
      try {
        await this.redis.within('register the retraining schedule', () => this.registerSchedule(model));
      } catch (error) {
        // A model whose schedule silently never fires is worse than a refused request.
        await this.models.delete({ id: model.id, organizationId });
        throw error;
      }
    }
    return { model: await this.getModel(organizationId, model.id), serving: null };
  }

  /**
   * The job scheduler of every model with a stored schedule: the models table is where a schedule
   * lives, Redis only fires it, and the worker keeps these registered (BackgroundWork.keepJobSchedulers):
   * all at start-up, whatever an older release registered (a schedule stored before the five-field
   * rule fires at most once a minute), and again within a minute those Redis lost. One whose model
   * changed meanwhile is put right when it fires (scheduledRetrain).
   */
  async storedSchedules(): Promise<KeptJobScheduler[]> {
    const scheduled = await this.models.find({ select: { id: true, organizationId: true, schedule: true }, where: { schedule: Not(IsNull()) } });
    return scheduled.flatMap((model) => jobSchedulerOf(model) ?? []);
  }

  /**
   * Queues again the runs of models left retraining with no job behind them (Redis restarted without
   * its data): each under its own job id, so a run Redis still holds is kept as it is, and a job that
   * finds its run over skips itself. Answers how many models were looked at.
   */
  async resumeLostRuns(): Promise<number> {
    const retraining = await this.models.find({
      select: { id: true, organizationId: true, retrainStartedAt: true },
      where: { status: 'retraining', retrainStartedAt: LessThan(new Date(Date.now() - RESUME_RUN_AFTER_MS)) },
    });
    const jobs = retraining.map((model) => trainJob(model.organizationId, model.id, model.retrainStartedAt as Date));
    await this.trainingQueue.addBulk(jobs);
    return jobs.length;
  }

  /**
   * A model's job scheduler fired: the same transition as POST /v1/models/retrain, unless the model or
   * its schedule is gone (its scheduler is removed) or its last run started less than a minute ago.
   */
  async scheduledRetrain(organizationId: string, modelId: string): Promise<RetrainStarted | null> {
    const model = await this.models.findOneBy({ id: modelId, organizationId });
    if (!model?.schedule) {
      await this.trainingQueue.removeJobScheduler(scheduleId(modelId));
      return null;
    }
    if (model.retrainStartedAt && Date.now() - model.retrainStartedAt.getTime() < MIN_SCHEDULED_INTERVAL_MS) return null;
    return this.retrain(organizationId, modelId);
  }

  async list(organizationId: string): Promise<ModelWithVersion[]> {
    const models = await this.models.find({ where: { organizationId }, order: { createdAt: 'ASC' } });
    const servingIds = models.map((m) => m.servingVersionId).filter((id): id is string => id !== null);
    const serving = servingIds.length > 0 ? await this.versions.findBy(servingIds.map((id) => ({ id, organizationId }))) : [];
    const byId = new Map(serving.map((v) => [v.id, v]));
    return models.map((model) => ({ model, serving: model.servingVersionId ? (byId.get(model.servingVersionId) ?? null) : null }));
  }

  async get(organizationId: string, modelId: string): Promise<ModelWithVersion> {
    const model = await this.getModel(organizationId, modelId);
    const serving = model.servingVersionId ? await this.versions.findOneBy({ id: model.servingVersionId, organizationId }) : null;
    return { model, serving };
  }

  /**
   * untrained | active | failed → retraining, and one training job. While a run is in flight the
   * same startedAt is returned and nothing new starts.
   */
  async retrain(organizationId: string, modelId: string): Promise<RetrainStarted> {
    const model = await this.getModel(organizationId, modelId);
    // Refused before anything changes while Redis is known to be down.
    this.redis.assertUp('queue the training run');
    const started = await this.sql.affected(START_RETRAINING, [modelId, organizationId]);
    const startedAt = (await this.getModel(organizationId, modelId)).retrainStartedAt as Date;
    if (started === 0) return { modelId, status: 'retraining', startedAt };
    const train = trainJob(organizationId, modelId, startedAt);
    try {
      await this.redis.within('queue the training run', () =>
        this.trainingQueue.add(train.name, train.data, train.opts),
      );
    } catch (error) {
      // Never leave a model "retraining" with no job behind it. Should the job still reach Redis
      // later, the run finds the model no longer retraining from that startedAt and skips itself.
      await this.models.update({ id: modelId, organizationId }, { status: model.status, retrainStartedAt: model.retrainStartedAt });
      throw error;
    }
    return { modelId, status: 'retraining', startedAt };
  }

  /** Every trained version of a model, newest first. */
  async listVersions(organizationId: string, modelId: string): Promise<ModelVersion[]> {
    await this.getModel(organizationId, modelId);
    return this.versions.find({ where: { organizationId, modelId }, order: { version: 'DESC' } });
  }

  /**
   * Makes a version the serving one (a rollback, or serving a version the automatic comparison
   * rejected); the version it replaces is retired. Serving reads it from the next request on.
   */
  async promote(organizationId: string, modelId: string, versionNumber: number): Promise<ModelWithVersion> {
    await this.getModel(organizationId, modelId);
    const target = await this.versions.findOneBy({ organizationId, modelId, version: versionNumber });
    if (!target) throw notFound(`version ${versionNumber} of model ${modelId}`);
    await this.models.manager.transaction(async (manager) => {
      await manager.update(ModelVersion, { organizationId, modelId, state: 'serving', id: Not(target.id) }, { state: 'retired' });
      await manager.update(ModelVersion, { id: target.id, organizationId }, { state: 'serving' });
      await this.sql.within(manager).affected(SERVE_VERSION, [modelId, organizationId, target.id]);
    });
    await this.scoreAfterPromotion(organizationId, modelId, newId('scr'));
    return this.get(organizationId, modelId);
  }

  /** Queues the bulk scoring run of a newly serving version: every active user gets its prediction in the log, changed labels are announced. */
  async scoreAfterPromotion(organizationId: string, modelId: string, runId: string): Promise<void> {
    const job = scoringRunJob({ organizationId, modelIds: [modelId], trigger: 'promotion' }, runId);
    await this.redis.within('queue the bulk scoring of the promoted version', () => this.scoringQueue.add(job.name, job.data, job.opts));
  }

  /** PATCH: a new name and/or schedule (null stops it). */
  async update(organizationId: string, modelId: string, changes: UpdateModel): Promise<ModelWithVersion> {
    const model = await this.getModel(organizationId, modelId);
    const scheduleChanged = changes.schedule !== undefined && changes.schedule !== model.schedule;
    if (scheduleChanged) this.redis.assertUp('change the retraining schedule');
    const columns = { ...(changes.name !== undefined && { name: changes.name }), ...(changes.schedule !== undefined && { schedule: changes.schedule }) };
    await this.models.update({ id: modelId, organizationId }, columns).catch((error: unknown) => {
      if (postgresErrorCode(error) !== UNIQUE_VIOLATION) throw error;
      throw invalidRequest(`name: a model named "${changes.name}" already exists`, [{ path: 'name', message: 'already exists' }]);
    });
    if (scheduleChanged) {
      const updated = { ...model, schedule: changes.schedule ?? null };
      try {
        await this.redis.within('change the retraining schedule', () => this.registerSchedule(updated));
      } catch (error) {
        // The stored schedule must be the one that fires.
        await this.models.update({ id: modelId, organizationId }, { schedule: model.schedule });
        throw error;
      }
    }
    return this.get(organizationId, modelId);
  }

  /**
   * Stops serving (from the next request on, as serving reads the serving versions on each), cancels the schedule and a queued run (a run
   * already fitting finds the model gone and stores nothing), and removes the model and its versions.
   * Logged predictions stay for export until retention.
   */
  async remove(organizationId: string, modelId: string): Promise<void> {
    await this.getModel(organizationId, modelId);
    this.redis.assertUp('cancel the retraining schedule');
    await this.redis.within('cancel the retraining schedule', async () => {
      await this.trainingQueue.removeJobScheduler(scheduleId(modelId));
      await this.trainingQueue.remove(modelId);
    });
    // Its versions go with it (ON DELETE CASCADE), in the same statement.
    await this.models.delete({ id: modelId, organizationId });
  }

  /** Every model of every organization that has a serving version: for deployment-wide jobs (monitoring), never for requests. */
  async servingInAllOrganizations(): Promise<Array<{ model: Model; serving: ModelVersion }>> {
    const models = await this.models.find({ where: { servingVersionId: Not(IsNull()) }, order: { createdAt: 'ASC' } });
    if (models.length === 0) return [];
    const versions = await this.versions.findBy(models.map((m) => ({ id: m.servingVersionId as string, organizationId: m.organizationId })));
    const byId = new Map(versions.map((v) => [v.id, v]));
    return models.flatMap((model) => {
      const serving = byId.get(model.servingVersionId as string);
      return serving ? [{ model, serving }] : [];
    });
  }

  /** The organization's models that have a serving version: a small read serving runs on every request. */
  servingVersions(organizationId: string): Promise<ServingVersionRef[]> {
    return this.sql.rows(SERVING_VERSIONS, [organizationId]);
  }

  async versionArtifact(organizationId: string, versionId: string): Promise<VersionArtifact> {
    const version = await this.versions.findOne({
      select: { id: true, version: true, manifest: true, onnx: true, target: true },
      where: { id: versionId, organizationId },
    });
    if (!version) throw notFound(`model version ${versionId}`);
    return { version: version.version, manifest: version.manifest, onnx: version.onnx, target: version.target };
  }

  /** Registered at minute granularity whatever was stored; a stored schedule that is no cron at all is not registered. */
  private async registerSchedule(model: Pick<Model, 'id' | 'organizationId' | 'schedule'>): Promise<void> {
    const scheduler = jobSchedulerOf(model);
    if (scheduler === null) await this.trainingQueue.removeJobScheduler(scheduleId(model.id));
    else await this.trainingQueue.upsertJobScheduler(scheduler.id, scheduler.repeat, scheduler.template);
  }

  private async getModel(organizationId: string, modelId: string): Promise<Model> {
    const model = await this.models.findOneBy({ id: modelId, organizationId });
    if (!model) throw notFound(`model ${modelId}`);
    return model;
  }
}
