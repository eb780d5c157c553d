import { Body, Controller, Get, HttpCode, Post, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiBody, ApiOkResponse, ApiOperation, ApiQuery, ApiTags } from '@nestjs/swagger';
import { z } from 'zod';
import type { Principal } from '@foresight/auth';
import { type CallerUser, sessionIdSchema, userIdSchema, UserIdsService } from '@foresight/events';
import { PredictionService } from '@foresight/predictions';
import { CurrentPrincipal, RequireScope } from '../http/access.decorators';
import { QueryUser } from '../http/caller-user.pipe';
import { openApiSchema, ZodPipe } from '../http/zod';
import { valueEstimateFields } from './value-estimate.schema';

const predictQuery = z
  .object({
    userId: userIdSchema.optional(),
    sessionId: sessionIdSchema.optional(),
    explain: z.enum(['true', 'false']).default('false').describe('add to each prediction why it scored so: its explanation'),
  })
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
  ...valueEstimateFields,
  dormant: z
    .literal(true)
    .optional()
    .describe(
      'inactivity models: the user was not active within activeDays, outside the population the model learned; label and confidence are the churn rate of such users at the training cutoffs',
    ),
});

const explanationSchema = z
  .object({
    base: z.number().describe("the raw score (log-odds before calibration) of a user the model knows nothing about: the training average"),
    contributions: z
      .array(
        z.object({
          feature: z.string().describe('the feature id, or "other" for the sum of every feature not listed'),
          label: z.string().describe('the feature in words'),
          value: z.number().nullable().describe("the user's value of the feature as the model read it; null for other"),
          contribution: z.number().describe('how much it raised (> 0) or lowered (< 0) the raw score, in log-odds'),
        }),
      )
      .describe('the 10 largest by size, then "other" summing the rest'),
  })
  .nullable()
  .describe(
    'with explain=true: the raw score split exactly (base + contributions, to 1e-6) by TreeSHAP (gbdt) or coefficient x standardized value (logistic); ' +
      'null for a version trained before explanations were stored; a value model explains its probability of any value; ' +
      'a dormant user of an inactivity model has no contributions, base being the log-odds of the rate they are answered with',
  );

const explainedPredictionSchema = predictionSchema.extend({ explanation: explanationSchema.optional() });

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
  predictions: z.array(explainedPredictionSchema),
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
  @ApiQuery({ name: 'explain', required: false, enum: ['true', 'false'], description: 'add each prediction\'s explanation (default false)' })
  @ApiOkResponse({ schema: openApiSchema(predictionResultSchema) })
  async predict(
    @CurrentPrincipal() { organizationId }: Principal,
    @Query(new ZodPipe(predictQuery)) query: z.infer<typeof predictQuery>,
    @QueryUser() user: CallerUser | undefined,
  ): Promise<PredictionResponse> {
    const options = { explain: query.explain === 'true' };
    if (user) return { userId: user.id, predictions: (await this.predictions.predict(organizationId, { user: user.stored }, options)).predictions };
    const sessionId = query.sessionId as string;
    const found = await this.predictions.predict(organizationId, { sessionId }, options);
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
