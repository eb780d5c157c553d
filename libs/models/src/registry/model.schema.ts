import { z } from 'zod';
import { eventNameSchema } from '@foresight/events';
import { cronExpression, printableText } from '@foresight/platform';

/** POST /v1/models. */
export const createModelSchema = z.strictObject({
  name: z.string().regex(/^[a-z][a-z0-9_]{2,63}$/, 'lowercase letters, digits and _, starting with a letter, 3 to 64 characters'),
  targetEvent: eventNameSchema,
  horizonDays: z.number().int().min(1).max(365).default(7),
  algorithm: z.enum(['gbdt', 'logistic']).default('gbdt'),
  labels: z
    .tuple([printableText(64), printableText(64)])
    .refine(([negative, positive]) => negative !== positive, 'the two labels must differ')
    .default(['unlikely', 'likely']),
  schedule: cronExpression('0 3 * * *').nullable().default(null),
});

export type CreateModel = z.infer<typeof createModelSchema>;

export const retrainSchema = z.strictObject({ modelId: printableText(64) });

/** The body of PATCH /v1/models/{id}. */
export const updateModelSchema = z
  .strictObject({ name: createModelSchema.shape.name.optional(), schedule: cronExpression('0 3 * * *').nullable().optional() })
  .refine((changes) => changes.name !== undefined || changes.schedule !== undefined, 'give name, schedule or both');

export type UpdateModel = z.infer<typeof updateModelSchema>;
