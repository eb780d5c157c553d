import type { FastifyRequest } from 'fastify';
import { nulByteRefusal } from './json-body';

/**
 * Query and path parameters reach Postgres as text, which cannot hold U+0000: 400 naming the
 * parameter, before any database access. A URL can carry NUL only percent-encoded (the HTTP parser
 * refuses a raw one), so a request without `%00` in it costs one substring search.
 */
export function refuseNulInUrl(request: FastifyRequest): void {
  if (!request.url.includes('%00')) return;
  for (const parameters of [request.query, request.params]) {
    for (const [name, value] of Object.entries((parameters ?? {}) as Record<string, unknown>)) {
      if (name.includes('\u0000') || [value].flat().some((item) => typeof item === 'string' && item.includes('\u0000'))) {
        throw nulByteRefusal(name);
      }
    }
  }
}
