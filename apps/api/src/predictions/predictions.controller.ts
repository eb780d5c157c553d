import { Body, Controller, Get, HttpCode, Post, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiBody, ApiOkResponse, ApiOperation, ApiQuery, ApiTags } from '@nestjs/swagger';
import { z } from 'zod';
import type { Principal } from '@foresight/auth';
import { type CallerUser, sessionIdSchema, userIdSchema, UserIdsService } from '@foresight/events';
import { PredictionService } from '@foresight/predictions';
import { CurrentPrincipal, RequireScope } from '../http/access.decorators';
import { QueryUser } from '../http/caller-user.pipe';
import { openApiSchema, ZodPipe } from '../http/zod';

const predictQuery = z
  .object({ userId: userIdSchema.optional(), sessionId: sessionIdSchema.optional() })
  .refine((q) => q.userId !== undefined || q.sessionId !== undefined, { message: 'userId or sessionId is required', path: ['userId'] });

/** Most users one batch request may name. */
const MAX_BATCH_USERS = 1_000;

const batchBody = z.object({
  userIds: z
    .array(userIdSchema)
    .min(1)
    .max(MAX_BATCH_USERS)
    .superRefine((ids, context) => {
      const firstIndex = new Map<string, number>();
      ids.forEach((id, i) => {
        const first = firstIndex.get(id);
        if (first === undefined) firstIndex.set(id, i);
        else context.addIssue({ code: 'custom', path: [i], message: `repeats userIds.${first}: name each user once` });
      });
    })
    .describe(`1 to ${MAX_BATCH_USERS} distinct user ids; each is answered in the order given`),
});

const predictionSchema = z.object({
  model: z.string().describe('model name (no mdl_ prefix)'),
  label: z.string().describe("the more probable of the model's two labels"),
  confidence: z.number().describe('calibrated probability of that label, in [0.5, 1]'),
  modelId: z.string(),
  version: z.number().int(),
});

const batchResultSchema = z.object({
  results: z.array(
    z.union([
      z.object({ userId: z.string(), predictions: z.array(predictionSchema) }),
      z.object({ userId: z.string(), error: z.literal('not_found').describe('the organization has no event of this user') }),
    ]),
  ),
});

const predictionResultSchema = z.object({
  userId: z
    .string()
    .optional()
    .describe('the userId asked for; for a session, its user unless the organization hashes user ids (the id as sent is stored nowhere)'),
  sessionId: z.string().optional().describe('echoed when the user was found through a session'),
  predictions: z.array(predictionSchema),
});

type PredictionResponse = z.infer<typeof predictionResultSchema>;
type BatchResponse = z.infer<typeof batchResultSchema>;

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

  @Post('predict/batch')
  @HttpCode(200)
  @RequireScope('read')
  @ApiOperation({
    summary: 'Predictions for up to 1,000 users in one request, counted once by the rate limiter',
    description:
      'Each entry is what GET /v1/predict answers for that user, in the order asked; a user the organization has no event of is ' +
      '{"userId", "error": "not_found"}. A user id named twice is a 400 naming both places.',
  })
  @ApiBody({ schema: openApiSchema(batchBody) })
  @ApiOkResponse({ schema: openApiSchema(batchResultSchema) })
  async predictBatch(@CurrentPrincipal() { organizationId }: Principal, @Body(new ZodPipe(batchBody)) body: z.infer<typeof batchBody>): Promise<BatchResponse> {
    const stored = await this.userIds.pseudonymizer(organizationId);
    const answers = await this.predictions.predictMany(organizationId, body.userIds.map(stored));
    return {
      results: body.userIds.map((userId, i) => {
        const predictions = answers[i];
        return predictions ? { userId, predictions } : { userId, error: 'not_found' as const };
      }),
    };
  }
}
