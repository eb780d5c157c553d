import type { FastifyRequest } from 'fastify';
import type { SerializedBatch } from '@foresight/predictions';

export const NDJSON = 'application/x-ndjson';
export const CSV = 'text/csv';

const [NEWLINE, COMMA, OPEN_ARRAY, CLOSE_ARRAY] = ['\n', ',', '[', ']'].map((text) => Buffer.from(text));

/** Line-based bodies (NDJSON, CSV): every batch's lines, each ended by a newline, after an optional header line. */
export async function* lines(batches: AsyncIterable<SerializedBatch>, header?: string): AsyncGenerator<Buffer> {
  if (header !== undefined) yield Buffer.from(`${header}\n`);
  for await (const batch of batches) {
    yield batch.bytes;
    yield NEWLINE;
  }
}

/** A JSON array of every batch's elements. */
export async function* jsonArray(batches: AsyncIterable<SerializedBatch>): AsyncGenerator<Buffer> {
  let first = true;
  yield OPEN_ARRAY;
  for await (const batch of batches) {
    if (!first) yield COMMA;
    yield batch.bytes;
    first = false;
  }
  yield CLOSE_ARRAY;
}

/**
 * The next page's URL for a `Link: <…>; rel="next"` header: absolute, from PUBLIC_URL when set, else
 * from the request's own scheme and host (X-Forwarded-* count only from TRUSTED_PROXIES): a client
 * follows it with its token, so no other client may pick it.
 */
export function nextPageLink(publicUrl: string | undefined, request: FastifyRequest, query: URLSearchParams): string {
  return `<${publicUrl ?? `${request.protocol}://${request.host}`}${request.url.split('?')[0]}?${query.toString()}>; rel="next"`;
}
