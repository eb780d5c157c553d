import { z } from 'zod';
import { printableText } from '@foresight/platform';

/** `rule` of an audience: exactly one of the two. */
export const audienceRuleSchema = z.union([
  z.strictObject({ minConfidence: z.number().gt(0).lte(1).describe("members: users whose probability of the label is at least this") }),
  z.strictObject({ topPercent: z.number().gt(0).lte(100).describe('members: this percent of scored users most likely to have the label (rounded up; ties by user id)') }),
]);

/** POST /v1/audiences. */
export const createAudienceSchema = z.strictObject({
  name: printableText(128),
  modelId: printableText(64),
  label: printableText(64).describe("one of the model's two labels"),
  rule: audienceRuleSchema,
});

export type CreateAudience = z.infer<typeof createAudienceSchema>;
