import { Controller, Get, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiQuery, ApiTags } from '@nestjs/swagger';
import { z } from 'zod';
import type { Principal } from '@foresight/auth';
import { type CallerUser, UserIdsService } from '@foresight/events';
import { PredictionService } from '@foresight/predictions';
import { CurrentPrincipal, RequireScope } from '../http/access.decorators';
import { QueryUser } from '../http/caller-user.pipe';
import { openApiSchema, ZodPipe } from '../http/zod';

const identifier = z.string().min(1).max(255);
const predictQuery = z
  .object({ userId: identifier.optional(), sessionId: identifier.optional() })
  .refine((q) => q.userId !== undefined || q.sessionId !== undefined, { message: 'userId or sessionId is required', path: ['userId'] });

const predictionResultSchema = z.object({
  userId: z
    .string()
    .optional()
    .describe('the userId asked for; for a session, its user unless the organization hashes user ids (the id as sent is stored nowhere)'),
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

type PredictionResponse = z.infer<typeof predictionResultSchema>;

@ApiTags('predictions')
@ApiBearerAuth()
@Controller()
export class PredictionsController {
  constructor(
    private readonly predictions: PredictionService,
    private readonly userIds: UserIdsService,
  ) {}

  @Get('predict')
  @RequireScope('read')
  @ApiOperation({ summary: 'Real-time predictions for a user (or the user of a session): one entry per model with a serving version' })
  @ApiQuery({ name: 'userId', required: false })
  @ApiQuery({ name: 'sessionId', required: false, description: 'used when userId is absent' })
  @ApiOkResponse({ schema: openApiSchema(predictionResultSchema) })
  async predict(
    @CurrentPrincipal() { organizationId }: Principal,
    @Query(new ZodPipe(predictQuery)) query: z.infer<typeof predictQuery>,
    @QueryUser() user: CallerUser | undefined,
  ): Promise<PredictionResponse> {
    if (user) return { userId: user.id, predictions: (await this.predictions.predict(organizationId, { user: user.stored })).predictions };
    const sessionId = query.sessionId as string;
    const found = await this.predictions.predict(organizationId, { sessionId });
    const userId = await this.userIds.callerIdOf(organizationId, found.user);
    return { ...(userId === undefined ? {} : { userId }), sessionId, predictions: found.predictions };
  }
}
