import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post } from '@nestjs/common';
import { ApiBearerAuth, ApiBody, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { z } from 'zod';
import type { Principal } from '@foresight/auth';
import { featureLabel } from '@foresight/features';
import { type CreateModel, createModelSchema, ModelsService, type ModelVersion, type ModelWithVersion, retrainSchema, type UpdateModel, updateModelSchema } from '@foresight/models';
import { ModelMonitoringService } from '@foresight/predictions';
import { CurrentPrincipal, RequireScope } from '../http/access.decorators';
import { Audited } from '../http/audit.interceptor';
import { openApiSchema, queryInteger, ZodPipe } from '../http/zod';

const summarySchema = z.object({
  id: z.string(),
  name: z.string(),
  kind: z.enum(['event', 'inactivity', 'value']).describe('what the model predicts (CONTRACT.md, Models)'),
  targetEvent: z.string().nullable().describe('null for an inactivity model'),
  status: z.enum(['untrained', 'active', 'retraining', 'failed']),
  version: z.number().nullable(),
  accuracy: z.number().nullable(),
  lastRetrained: z.string().nullable(),
  auc: z.number().nullable(),
  schedule: z.string().nullable(),
});

const importanceSchema = z
  .array(
    z.object({
      feature: z.string(),
      label: z.string().describe('the feature in words'),
      weight: z.number(),
      direction: z
        .enum(['raises', 'lowers', 'none'])
        .nullable()
        .describe("whether a higher value raises or lowers the probability (partial dependence on the validation rows); null for versions trained before it was computed"),
    }),
  )
  .describe('most important first; weights sum to 1');

const detailsSchema = summarySchema.extend({
  horizonDays: z.number(),
  algorithm: z.enum(['gbdt', 'logistic']),
  labels: z.array(z.string()),
  activeDays: z.number().nullable().describe('inactivity: predicts for users active within this many days; null for the other kinds'),
  valueProperty: z.string().nullable().describe('value: the numeric property of targetEvent whose sum is predicted; null for the other kinds'),
  precision: z.number().nullable(),
  recall: z.number().nullable(),
  mae: z.number().nullable().describe('value: mean absolute error of the expected sum on the time-based holdout; null for the other kinds'),
  rmse: z.number().nullable().describe('value: root mean squared error of the expected sum on the holdout'),
  r2: z.number().nullable().describe('value: R² of the expected sum on the holdout'),
  intervalCoverage: z.number().nullable().describe('value: share of holdout users whose actual sum fell within [p10, p90]'),
  expectedIntervalCoverage: z
    .number()
    .nullable()
    .describe(
      "value: the share the model itself expects within [p10, p90] on the same users; above 0.8 because a user unlikely to spend gets an interval from 0 that takes in the whole chance of nothing. Measured on the holdout users that also set the interval's spread and the calibration, so it checks consistency more than it proves honesty. Null for versions trained before it was measured",
    ),
  dormantUsers: z
    .object({ churnRate: z.number(), rows: z.number() })
    .nullable()
    .describe(
      'inactivity: users not active within activeDays are outside what the model learned; they are answered with this rate, the share of such users at the training cutoffs who then sent no event within the horizon',
    ),
  featureImportance: importanceSchema,
  lastError: z.string().nullable(),
});

const metricsSchema = z.object({
  rows: z.number(),
  positives: z.number(),
  baseRate: z.number(),
  threshold: z.number(),
  accuracy: z.number(),
  precision: z.number(),
  recall: z.number(),
  auc: z.number(),
  logLoss: z.number(),
  value: z
    .object({ mae: z.number(), rmse: z.number(), r2: z.number(), intervalCoverage: z.number(), expectedIntervalCoverage: z.number().optional(), meanActual: z.number(), meanPredicted: z.number() })
    .optional()
    .describe('value models only: the expected sum against the actual sums of the holdout'),
});

const curvesSchema = z
  .object({
    reliability: z.array(
      z.object({ lower: z.number(), upper: z.number(), rows: z.number(), meanPredicted: z.number().nullable(), observedRate: z.number().nullable() }),
    ),
    scoreHistogram: z.object({ binEdges: z.array(z.number()), positives: z.array(z.number()), negatives: z.array(z.number()) }),
    thresholds: z.array(
      z.object({
        threshold: z.number(),
        precision: z.number().nullable(),
        recall: z.number(),
        flaggedShare: z.number(),
        truePositives: z.number(),
        falsePositives: z.number(),
        falseNegatives: z.number(),
        trueNegatives: z.number(),
      }),
    ),
  })
  .nullable()
  .describe('computed on the validation set; null for versions trained before curves were stored');

const versionSchema = z.object({
  version: z.number(),
  state: z.enum(['serving', 'retired', 'rejected']),
  algorithm: z.enum(['gbdt', 'logistic']),
  createdAt: z.string(),
  windowStart: z.string(),
  windowEnd: z.string(),
  trainRows: z.number(),
  validationRows: z.number(),
  metrics: metricsSchema,
  featureImportance: importanceSchema,
  rejectionReason: z.string().nullable(),
  curves: curvesSchema,
});

const versionParams = z.object({ modelId: z.string(), version: queryInteger(1, 2_147_483_647) });

const healthSchema = z
  .array(z.object({ day: z.string().describe('YYYY-MM-DD, UTC'), health: z.enum(['healthy', 'degraded', 'failing', 'no_data']) }))
  .describe(
    'the last 14 days, oldest first, from the monitoring history: the worst snapshot of each day (failing: high drift; degraded: moderate drift, or live accuracy more than 5 points below validation); no_data when none ran, or none could judge (drift on too few predictions and no live accuracy): never healthy without evidence',
  );
const listedSchema = summarySchema.extend({ health: healthSchema });
const detailsWithHealthSchema = detailsSchema.extend({ health: healthSchema });

type ModelSummary = z.infer<typeof summarySchema>;
type ModelDetails = z.infer<typeof detailsSchema>;
type VersionDetails = z.infer<typeof versionSchema>;

@ApiTags('models')
@ApiBearerAuth()
@Controller('models')
export class ModelsController {
  constructor(
    private readonly models: ModelsService,
    private readonly monitoring: ModelMonitoringService,
  ) {}

  @Post()
  @HttpCode(200)
  @RequireScope('manage')
  @Audited('model.create', { resultField: 'id' })
  @ApiOperation({ summary: 'Create a model; it serves predictions once a retrain produced a version' })
  @ApiBody({ schema: openApiSchema(createModelSchema) })
  @ApiOkResponse({ schema: openApiSchema(detailsSchema) })
  async create(@CurrentPrincipal() principal: Principal, @Body(new ZodPipe(createModelSchema)) body: CreateModel): Promise<ModelDetails> {
    return details(await this.models.create(principal.organizationId, body));
  }

  @Get()
  @RequireScope('read')
  @ApiOperation({ summary: "The organization's models" })
  @ApiOkResponse({ schema: openApiSchema(z.array(listedSchema)) })
  async list(@CurrentPrincipal() principal: Principal): Promise<Array<z.infer<typeof listedSchema>>> {
    const entries = await this.models.list(principal.organizationId);
    const health = await this.monitoring.healthOverDays(principal.organizationId, entries.map(({ model }) => model.id));
    return entries.map((entry) => ({ ...summary(entry), health: health.get(entry.model.id) ?? [] }));
  }

  @Post('retrain')
  @HttpCode(200)
  @RequireScope('manage')
  @Audited('model.retrain', { resultField: 'modelId' })
  @ApiOperation({ summary: 'Start retraining; while a run is in flight, answers its startedAt and starts nothing' })
  @ApiBody({ schema: openApiSchema(retrainSchema) })
  @ApiOkResponse({ schema: openApiSchema(z.object({ modelId: z.string(), status: z.literal('retraining'), startedAt: z.string() })) })
  async retrain(
    @CurrentPrincipal() principal: Principal,
    @Body(new ZodPipe(retrainSchema)) body: z.infer<typeof retrainSchema>,
  ): Promise<{ modelId: string; status: 'retraining'; startedAt: string }> {
    const started = await this.models.retrain(principal.organizationId, body.modelId);
    return { ...started, startedAt: started.startedAt.toISOString() };
  }

  @Get(':modelId/versions')
  @RequireScope('read')
  @ApiOperation({ summary: 'Every trained version, newest first, with its validation metrics, curves, training window, rows and state' })
  @ApiOkResponse({ schema: openApiSchema(z.object({ modelId: z.string(), versions: z.array(versionSchema) })) })
  async versions(@CurrentPrincipal() principal: Principal, @Param('modelId') modelId: string): Promise<{ modelId: string; versions: VersionDetails[] }> {
    return { modelId, versions: (await this.models.listVersions(principal.organizationId, modelId)).map(versionDetails) };
  }

  @Post(':modelId/versions/:version/promote')
  @HttpCode(200)
  @RequireScope('manage')
  @Audited('model.promote', { param: 'modelId' })
  @ApiOperation({ summary: 'Make a version the serving one (a rollback); the version it replaces is retired' })
  @ApiOkResponse({ schema: openApiSchema(detailsSchema) })
  async promote(
    @CurrentPrincipal() principal: Principal,
    @Param(new ZodPipe(versionParams)) params: z.infer<typeof versionParams>,
  ): Promise<ModelDetails> {
    return details(await this.models.promote(principal.organizationId, params.modelId, params.version));
  }

  @Patch(':modelId')
  @RequireScope('manage')
  @Audited('model.update', { param: 'modelId' })
  @ApiOperation({ summary: 'Rename a model or change its retraining schedule (null stops it)' })
  @ApiBody({ schema: openApiSchema(updateModelSchema) })
  @ApiOkResponse({ schema: openApiSchema(detailsSchema) })
  async update(
    @CurrentPrincipal() principal: Principal,
    @Param('modelId') modelId: string,
    @Body(new ZodPipe(updateModelSchema)) body: UpdateModel,
  ): Promise<ModelDetails> {
    return details(await this.models.update(principal.organizationId, modelId, body));
  }

  @Delete(':modelId')
  @RequireScope('manage')
  @Audited('model.delete', { param: 'modelId' })
  @ApiOperation({ summary: 'Stop serving, cancel the schedule and runs, remove the model and its versions (logged predictions stay)' })
  @ApiOkResponse({ schema: openApiSchema(z.object({ status: z.literal('deleted'), modelId: z.string() })) })
  async remove(@CurrentPrincipal() principal: Principal, @Param('modelId') modelId: string): Promise<{ status: 'deleted'; modelId: string }> {
    await this.models.remove(principal.organizationId, modelId);
    return { status: 'deleted', modelId };
  }

  @Get(':modelId')
  @RequireScope('read')
  @ApiOperation({ summary: 'A model with the validation metrics and feature importance of its serving version' })
  @ApiOkResponse({ schema: openApiSchema(detailsWithHealthSchema) })
  async get(@CurrentPrincipal() principal: Principal, @Param('modelId') modelId: string): Promise<z.infer<typeof detailsWithHealthSchema>> {
    const entry = await this.models.get(principal.organizationId, modelId);
    const health = await this.monitoring.healthOverDays(principal.organizationId, [entry.model.id]);
    return { ...details(entry), health: health.get(entry.model.id) ?? [] };
  }
}

function summary({ model, serving }: ModelWithVersion): ModelSummary {
  return {
    id: model.id,
    name: model.name,
    kind: model.kind,
    targetEvent: model.targetEvent,
    status: model.status,
    version: serving?.version ?? null,
    accuracy: serving?.metrics.accuracy ?? null,
    lastRetrained: model.lastRetrainedAt?.toISOString() ?? null,
    auc: serving?.metrics.auc ?? null,
    schedule: model.schedule,
  };
}

function details(entry: ModelWithVersion): ModelDetails {
  const { model, serving } = entry;
  return {
    ...summary(entry),
    horizonDays: model.horizonDays,
    algorithm: model.algorithm,
    labels: model.labels,
    activeDays: model.activeDays,
    valueProperty: model.valueProperty,
    precision: serving?.metrics.precision ?? null,
    recall: serving?.metrics.recall ?? null,
    mae: serving?.metrics.value?.mae ?? null,
    rmse: serving?.metrics.value?.rmse ?? null,
    r2: serving?.metrics.value?.r2 ?? null,
    intervalCoverage: serving?.metrics.value?.intervalCoverage ?? null,
    expectedIntervalCoverage: serving?.metrics.value?.expectedIntervalCoverage ?? null,
    dormantUsers: serving?.target?.kind === 'inactivity' ? serving.target.dormant : null,
    featureImportance: importanceView(serving?.featureImportance ?? []),
    lastError: model.lastError,
  };
}

function importanceView(importance: ModelVersion['featureImportance']): z.infer<typeof importanceSchema> {
  return importance.map(({ feature, weight, direction }) => ({ feature, label: featureLabel(feature), weight, direction: direction ?? null }));
}

function versionDetails(version: ModelVersion): VersionDetails {
  return {
    version: version.version,
    state: version.state,
    algorithm: version.algorithm,
    createdAt: version.createdAt.toISOString(),
    windowStart: version.windowStart.toISOString(),
    windowEnd: version.windowEnd.toISOString(),
    trainRows: version.trainRows,
    validationRows: version.validationRows,
    metrics: version.metrics,
    featureImportance: importanceView(version.featureImportance),
    rejectionReason: version.rejectionReason,
    curves: version.curves,
  };
}
