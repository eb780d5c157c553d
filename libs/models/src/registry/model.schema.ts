import { z } from 'zod';
import { eventNameSchema } from '@foresight/events';
import { cronExpression, printableText } from '@foresight/platform';
import type { ModelKind } from './model.entity';

/** Each kind's labels when none are given: [negative, positive]. */
export const DEFAULT_LABELS: Readonly<Record<ModelKind, readonly [string, string]>> = {
  event: ['unlikely', 'likely'],
  inactivity: ['stays', 'churns'],
  value: ['unlikely', 'likely'],
};

/** `inactivity`'s population when `activeDays` is not given (GA4's churn: active within the last 7 days). */
export const DEFAULT_ACTIVE_DAYS = 7;

const nameSchema = z.string().regex(/^[a-z][a-z0-9_]{2,63}$/, 'lowercase letters, digits and _, starting with a letter, 3 to 64 characters');

/** POST /v1/models: which fields a kind takes is checked after the shape, each wrong one named. */
export const createModelSchema = z
  .strictObject({
    name: nameSchema,
    kind: z.enum(['event', 'inactivity', 'value']).default('event').describe('event: does the user do targetEvent; inactivity: does the user send no event at all; value: the sum of valueProperty of targetEvent'),
    targetEvent: eventNameSchema.optional().describe('required for event and value; absent for inactivity'),
    valueProperty: printableText(64).optional().describe('value only: the numeric property of targetEvent whose sum is predicted'),
    activeDays: z.number().int().min(1).max(90).optional().describe(`inactivity only: the users predicted for were active within this many days (default ${DEFAULT_ACTIVE_DAYS})`),
    horizonDays: z.number().int().min(1).max(365).default(7),
    algorithm: z.enum(['gbdt', 'logistic']).default('gbdt'),
    labels: z
      .tuple([printableText(64), printableText(64)])
      .refine(([negative, positive]) => negative !== positive, 'the two labels must differ')
      .optional()
      .describe('[negative, positive]; default ["unlikely","likely"], ["stays","churns"] for inactivity'),
    schedule: cronExpression('0 3 * * *').nullable().default(null),
  })
  .superRefine((body, context) => {
    const wrong = (path: string, message: string) => context.addIssue({ code: 'custom', path: [path], message });
    if (body.kind === 'inactivity' && body.targetEvent !== undefined) wrong('targetEvent', 'absent for an inactivity model: any event counts');
    if (body.kind !== 'inactivity' && body.targetEvent === undefined) wrong('targetEvent', `required for a${body.kind === 'event' ? 'n' : ''} ${body.kind} model`);
    if (body.kind === 'value' && body.valueProperty === undefined) wrong('valueProperty', 'required for a value model');
    if (body.kind !== 'value' && body.valueProperty !== undefined) wrong('valueProperty', 'only for a value model');
    if (body.kind !== 'inactivity' && body.activeDays !== undefined) wrong('activeDays', 'only for an inactivity model');
  })
  .transform(({ kind, targetEvent, valueProperty, activeDays, labels, ...rest }) => ({
    ...rest,
    kind,
    targetEvent: targetEvent ?? null,
    valueProperty: valueProperty ?? null,
    activeDays: kind === 'inactivity' ? (activeDays ?? DEFAULT_ACTIVE_DAYS) : null,
    labels: labels ?? DEFAULT_LABELS[kind],
  }));

export type CreateModel = z.infer<typeof createModelSchema>;

export const retrainSchema = z.strictObject({ modelId: printableText(64) });

/** The body of PATCH /v1/models/{id}. */
export const updateModelSchema = z
  .strictObject({ name: nameSchema.optional(), schedule: cronExpression('0 3 * * *').nullable().optional() })
  .refine((changes) => changes.name !== undefined || changes.schedule !== undefined, 'give name, schedule or both');

export type UpdateModel = z.infer<typeof updateModelSchema>;
