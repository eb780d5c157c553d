import type { FastifyRequest } from 'fastify';
import { invalidRequest } from '@foresight/platform';
import { nulByteRefusal } from './json-body';

/** Longest parameter name an answer repeats: a hostile query cannot make the answer large. */
const MAX_SHOWN_NAME_LENGTH = 100;

/**
 * Query and path parameters reach Postgres as text, which cannot hold U+0000, and a query must be
 * percent-encoded UTF-8: 400 naming the parameter, before any database access. The checks cost a
 * substring search each on a request without `%` in its query or `%00` anywhere.
 */
export function refuseUnreadableUrl(request: FastifyRequest): void {
  refuseUndecodableQuery(request.url);
  refuseNulInUrl(request);
}

/**
 * The query parser keeps a percent-encoding that is not UTF-8 as its literal text (`%ED%A0%80`, the
 * bytes of a lone surrogate; `%FF`; a stray `%`), so `?userId=%ED%A0%80` and `?userId=%25ED%25A0%2580`
 * would name one user. Fastify refuses such a path (FST_ERR_BAD_URL); a query is refused alike.
 */
function refuseUndecodableQuery(url: string): void {
  const start = url.indexOf('?');
  if (start < 0 || !url.includes('%', start)) return;
  const query = url.slice(start + 1);
  if (isDecodable(query)) return;
  const pair = query.split('&').find((part) => !isDecodable(part)) ?? query;
  const name = pair.split('=')[0].slice(0, MAX_SHOWN_NAME_LENGTH);
  throw invalidRequest(`${name}: not validly percent-encoded UTF-8`, [{ path: name, message: 'not validly percent-encoded UTF-8' }]);
}

function isDecodable(text: string): boolean {
  try {
    decodeURIComponent(text);
    return true;
  } catch {
    return false;
  }
}

/** A URL can carry NUL only percent-encoded (the HTTP parser refuses a raw one). */
function refuseNulInUrl(request: FastifyRequest): void {
  if (!request.url.includes('%00')) return;
  for (const parameters of [request.query, request.params]) {
    for (const [name, value] of Object.entries((parameters ?? {}) as Record<string, unknown>)) {
      if (name.includes('\u0000') || [value].flat().some((item) => typeof item === 'string' && item.includes('\u0000'))) {
        throw nulByteRefusal(name);
      }
    }
  }
}
