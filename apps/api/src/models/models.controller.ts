import { Body, Controller, Get, HttpCode, Param, Post } from '@nestjs/common';
import { ApiBearerAuth, ApiBody, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { z } from 'zod';
import type { Principal } from '@foresight/auth';
import { createModelSchema, ModelsService, retrainSchema, type CreateModel, type ModelWithVersion } from '@foresight/models';
import { CurrentPrincipal, RequireScope } from '../http/access.decorators';
import { Audited } from '../http/audit.interceptor';
import { openApiSchema, ZodPipe } from '../http/zod';

const summarySchema = z.object({
  id: z.string(),
  name: z.string(),
  targetEvent: z.string(),
  status: z.enum(['untrained', 'active', 'retraining', 'failed']),
  version: z.number().nullable(),
  accuracy: z.number().nullable(),
  lastRetrained: z.string().nullable(),
});

const detailsSchema = summarySchema.extend({
  horizonDays: z.number(),
  algorithm: z.enum(['gbdt', 'logistic']),
  labels: z.array(z.string()),
  schedule: z.string().nullable(),
  precision: z.number().nullable(),
  recall: z.number().nullable(),
  auc: z.number().nullable(),
  featureImportance: z.array(z.object({ feature: z.string(), weight: z.number() })),
  lastError: z.string().nullable(),
});

type ModelSummary = z.infer<typeof summarySchema>;
type ModelDetails = z.infer<typeof detailsSchema>;

@ApiTags('models')
@ApiBearerAuth()
@Controller('models')
export class ModelsController {
  constructor(private readonly models: ModelsService) {}

  @Post()
  @HttpCode(200)
  @RequireScope('admin')
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
  @ApiOkResponse({ schema: openApiSchema(z.array(summarySchema)) })
  async list(@CurrentPrincipal() principal: Principal): Promise<ModelSummary[]> {
    return (await this.models.list(principal.organizationId)).map(summary);
  }

  @Post('retrain')
  @HttpCode(200)
  @RequireScope('admin')
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

  @Get(':modelId')
  @RequireScope('read')
  @ApiOperation({ summary: 'A model with the validation metrics and feature importance of its serving version' })
  @ApiOkResponse({ schema: openApiSchema(detailsSchema) })
  async get(@CurrentPrincipal() principal: Principal, @Param('modelId') modelId: string): Promise<ModelDetails> {
    return details(await this.models.get(principal.organizationId, modelId));
  }
}

function summary({ model, serving }: ModelWithVersion): ModelSummary {
  return {
    id: model.id,
    name: model.name,
    targetEvent: model.targetEvent,
    status: model.status,
    version: serving?.version ?? null,
    accuracy: serving?.metrics.accuracy ?? null,
    lastRetrained: model.lastRetrainedAt?.toISOString() ?? null,
  };
}

function details(entry: ModelWithVersion): ModelDetails {
  const { model, serving } = entry;
  return {
    ...summary(entry),
    horizonDays: model.horizonDays,
    algorithm: model.algorithm,
    labels: model.labels,
    schedule: model.schedule,
    precision: serving?.metrics.precision ?? null,
    recall: serving?.metrics.recall ?? null,
    auc: serving?.metrics.auc ?? null,
    featureImportance: serving?.featureImportance ?? [],
    lastError: model.lastError,
  };
}
