import { type PipeTransform } from '@nestjs/common';
import { z } from 'zod';
import { invalidRequest } from '@foresight/platform';

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
