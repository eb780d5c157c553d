import { type PipeTransform } from '@nestjs/common';
import { z } from 'zod';
import { invalidRequest, isExactUtcInstant, isStorableInstant } from '@foresight/platform';

/** Validates a body or query with a zod schema; failures become 400 invalid_request naming each field. */
export class ZodPipe<T extends z.ZodType> implements PipeTransform<unknown, z.infer<T>> {
  constructor(private readonly schema: T) {}

  transform(value: unknown): z.infer<T> {
    const result = this.schema.safeParse(value);
    if (result.success) return result.data;
    const details = result.error.issues.map((issue) => ({
      path: issue.path.length > 0 ? issue.path.join('.') : '(body)',
      message: issue.message,
    }));
    throw invalidRequest(details.map((d) => `${d.path}: ${d.message}`).join('; '), details);
  }
}

/** The same schema as an OpenAPI schema object, so the document is generated from the validating code. */
export function openApiSchema(schema: z.ZodType): Record<string, unknown> {
  const { $schema: _ignored, ...rest } = z.toJSONSchema(schema, { target: 'openapi-3.0', io: 'input', unrepresentable: 'any' });
  return rest;
}

/** A query's ISO 8601 date-time with a zone offset, as a Date Postgres stores as given (years 0001 to 9999 UTC). */
export const queryInstant = z.iso
  .datetime({ offset: true })
  .transform((text) => new Date(text))
  .refine(isStorableInstant, 'out of range: years 0001 to 9999 (UTC)');

/** A query's UTC calendar day, YYYY-MM-DD, that exists (no 30 February, no year 0000). */
export const queryDay = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/, 'a date of the form YYYY-MM-DD')
  .refine(isExactUtcInstant, 'not a calendar date of the years 0001 to 9999')
  .transform((value) => new Date(`${value}T00:00:00Z`));

/** A query's whole number in plain decimal digits (no 1e3, 0x10, or spaces), within bounds. */
export const queryInteger = (min: number, max: number) =>
  z
    .string()
    .regex(/^\d{1,15}$/, 'a whole number in decimal digits')
    .transform(Number)
    .pipe(z.number().int().min(min).max(max));
