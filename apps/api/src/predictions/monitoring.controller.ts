import { Controller, Get, Param, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiQuery, ApiTags } from '@nestjs/swagger';
import { z } from 'zod';
import type { Principal } from '@foresight/auth';
import { DAY_MS } from '@foresight/platform';
import { ModelMonitoringService, type MonitoringFigures, type MonitoringPoint } from '@foresight/predictions';
import { CurrentPrincipal, RequireScope } from '../http/access.decorators';
import { openApiSchema, queryInstant, ZodPipe } from '../http/zod';

const HISTORY_DEFAULT_DAYS = 7;

const driftSchema = z.object({
  metric: z.literal('confidence_mean'),
  delta: z.number().describe('mean confidence of the last 24 h minus the validation mean of the serving version'),
  status: z.enum(['none', 'low', 'moderate', 'high']).describe('from the PSI: < 0.1 none, < 0.2 low, < 0.3 moderate, else high; none unless state is measured'),
  state: z
    .enum(['not_run', 'insufficient_data', 'measured'])
    .describe('measured: a PSI on at least minimumSample predictions of the last 24 h; insufficient_data: fewer (no PSI, no drift.detected); not_run: monitoring has not run for the serving version yet'),
  sampleSize: z.number().int().describe('predictions of the last 24 h the drift was computed on'),
  minimumSample: z.number().int().describe('predictions needed before drift is measured'),
});

const figures = {
  accuracy: z.number().nullable(),
  accuracySource: z.enum(['live', 'validation']).nullable().describe('live once 50 predictions matured in 30 days'),
  latencyMs: z.number().nullable().describe('p95 of server-side inference time, last 15 minutes, all API processes'),
  throughput: z.number().describe('predictions per minute, last 15 minutes'),
  throughputUnit: z.literal('predictions/min'),
  drift: driftSchema,
  psi: z.number().nullable().describe('null unless drift.state is measured'),
};

const monitoringSchema = z.object({
  modelId: z.string(),
  ...figures,
  window: z.object({
    latencyAndThroughputMinutes: z.number(),
    driftHours: z.number(),
    accuracyDays: z.number(),
    maturedPredictions: z.number(),
    predictions24h: z.number(),
    driftComputedAt: z.string().nullable(),
  }),
});

const historyQuery = z.strictObject({ since: queryInstant.optional().describe(`default: ${HISTORY_DEFAULT_DAYS} days ago`) });

const historySchema = z.object({
  modelId: z.string(),
  points: z.array(z.object({ computedAt: z.string(), version: z.number(), maturedPredictions: z.number(), predictions24h: z.number(), ...figures })),
});

@ApiTags('models')
@ApiBearerAuth()
@RequireScope('read')
@Controller('models/monitor')
export class MonitoringController {
  constructor(private readonly monitoring: ModelMonitoringService) {}

  @Get(':modelId')
  @ApiOperation({ summary: "A model's live accuracy, inference latency, throughput and drift" })
  @ApiOkResponse({ schema: openApiSchema(monitoringSchema) })
  current(@CurrentPrincipal() principal: Principal, @Param('modelId') modelId: string): Promise<MonitoringFigures> {
    return this.monitoring.current(principal.organizationId, modelId);
  }

  @Get(':modelId/history')
  @ApiOperation({ summary: 'The same figures as a time series, one point per monitoring run, oldest first' })
  @ApiQuery({ name: 'since', required: false })
  @ApiOkResponse({ schema: openApiSchema(historySchema) })
  async history(
    @CurrentPrincipal() principal: Principal,
    @Param('modelId') modelId: string,
    @Query(new ZodPipe(historyQuery)) query: z.infer<typeof historyQuery>,
  ): Promise<{ modelId: string; points: MonitoringPoint[] }> {
    const since = query.since ?? new Date(Date.now() - HISTORY_DEFAULT_DAYS * DAY_MS);
    return { modelId, points: await this.monitoring.history(principal.organizationId, modelId, since) };
  }
}
