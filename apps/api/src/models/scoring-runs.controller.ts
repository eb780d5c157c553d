import { Controller, Get, HttpCode, Param, Post } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { z } from 'zod';
import type { Principal } from '@foresight/auth';
import { notFound } from '@foresight/platform';
import { type ScoringRun, ScoringRunsService } from '@foresight/predictions';
import { CurrentPrincipal, RequireScope } from '../http/access.decorators';
import { Audited } from '../http/audit.interceptor';
import { openApiSchema } from '../http/zod';

const runSchema = z.object({
  id: z.string(),
  modelIds: z.array(z.string()),
  trigger: z.enum(['promotion', 'daily', 'manual']),
  state: z.enum(['queued', 'running', 'completed', 'failed']),
  scored: z.number().describe('users scored so far, each by every model of the run'),
  total: z.number().nullable().describe('users active within the feature window when the run started; null until then'),
  changed: z.number().describe('labels that changed from the previous logged prediction (sent as prediction.updated)'),
  error: z.string().nullable(),
  createdAt: z.string(),
  startedAt: z.string().nullable(),
  finishedAt: z.string().nullable(),
});

type RunView = z.infer<typeof runSchema>;

/** Bulk scoring runs of a model: every user active within the feature window scored by the worker, logged for export. */
@ApiTags('models')
@ApiBearerAuth()
@Controller('models')
export class ScoringRunsController {
  constructor(private readonly runs: ScoringRunsService) {}

  @Post(':modelId/score')
  @HttpCode(202)
  @RequireScope('manage')
  @Audited('model.score', { param: 'modelId' })
  @ApiOperation({ summary: 'Queue a bulk scoring run of the model (a worker scores every user active within the feature window); poll its progress with GET' })
  @ApiOkResponse({ schema: openApiSchema(runSchema) })
  async start(@CurrentPrincipal() principal: Principal, @Param('modelId') modelId: string): Promise<RunView> {
    return runView(await this.runs.startManual(principal.organizationId, [modelId]));
  }

  @Get(':modelId/score/:runId')
  @RequireScope('read')
  @ApiOperation({ summary: "A bulk scoring run's state and progress" })
  @ApiOkResponse({ schema: openApiSchema(runSchema) })
  async get(@CurrentPrincipal() principal: Principal, @Param('modelId') modelId: string, @Param('runId') runId: string): Promise<RunView> {
    const run = await this.runs.get(principal.organizationId, runId);
    if (!run.modelIds.includes(modelId)) throw notFound(`scoring run ${runId}`);
    return runView(run);
  }
}

function runView(run: ScoringRun): RunView {
  return {
    id: run.id,
    modelIds: run.modelIds,
    trigger: run.trigger,
    state: run.state,
    scored: run.scored,
    total: run.total,
    changed: run.changed,
    error: run.error,
    createdAt: run.createdAt.toISOString(),
    startedAt: run.startedAt?.toISOString() ?? null,
    finishedAt: run.finishedAt?.toISOString() ?? null,
  };
}
