import { Controller, Get, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiQuery, ApiTags } from '@nestjs/swagger';
import { z } from 'zod';
import { UserIds, type Principal } from '@foresight/auth';
import { PredictionService, type PredictionResult } from '@foresight/predictions';
import { CurrentPrincipal, RequireScope } from '../http/access.decorators';
import { openApiSchema, ZodPipe } from '../http/zod';

const identifier = z.string().min(1).max(255);
const predictQuery = z
  .object({ userId: identifier.optional(), sessionId: identifier.optional() })
  .refine((q) => q.userId !== undefined || q.sessionId !== undefined, { message: 'userId or sessionId is required', path: ['userId'] });

const predictionResultSchema = z.object({
  userId: z.string(),
  sessionId: z.string().optional().describe('echoed when the user was found through a session'),
  predictions: z.array(
    z.object({
      model: z.string().describe('model name (no mdl_ prefix)'),
      label: z.string().describe("the more probable of the model's two labels"),
      confidence: z.number().describe('calibrated probability of that label, in [0.5, 1]'),
      modelId: z.string(),
      version: z.number().int(),
    }),
  ),
});

@ApiTags('predictions')
@ApiBearerAuth()
@Controller()
export class PredictionsController {
  constructor(
    private readonly predictions: PredictionService,
    private readonly userIds: UserIds,
  ) {}

  @Get('predict')
  @RequireScope('read')
  @ApiOperation({ summary: 'Real-time predictions for a user (or the user of a session): one entry per model with a serving version' })
  @ApiQuery({ name: 'userId', required: false })
  @ApiQuery({ name: 'sessionId', required: false, description: 'used when userId is absent' })
  @ApiOkResponse({ schema: openApiSchema(predictionResultSchema) })
  async predict(@CurrentPrincipal() principal: Principal, @Query(new ZodPipe(predictQuery)) query: z.infer<typeof predictQuery>): Promise<PredictionResult> {
    // Ids are stored pseudonymized when the organization hashes them; the caller gets its own id back.
    const subject = query.userId !== undefined ? { userId: await this.userIds.pseudonymize(principal.organizationId, query.userId) } : { sessionId: query.sessionId as string };
    return { ...(await this.predictions.predict(principal.organizationId, subject)), ...(query.userId !== undefined ? { userId: query.userId } : {}) };
  }
}
