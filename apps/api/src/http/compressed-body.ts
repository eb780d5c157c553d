import { type Readable, Transform } from 'node:stream';
import { createGunzip, createInflate, type Gunzip, type Inflate } from 'node:zlib';
import { AppError, invalidRequest } from '@foresight/platform';

/** A request body stream as Fastify's body reader sees it: it compares this count with Content-Length. */
type EncodedBody = Transform & { receivedEncodedLength: number };

/**
 * The decompressed body of a `Content-Encoding: gzip` or `deflate` request,
 * decompressed as a stream: past `limit` decompressed bytes it fails with payload_too_large, so a
 * compression bomb never costs more than the limit and one zlib chunk. A truncated or corrupt stream,
 * or an encoding the bytes do not match, fails with invalid_request. Undefined for no encoding.
 *
 * The request stream is never destroyed here: the socket must stay open for the error answer.
 */
export function decompressedBody(payload: Readable, header: string | undefined, limit: number): Readable | undefined {
  const encoding = header?.trim().toLowerCase();
  if (encoding === undefined || encoding === '' || encoding === 'identity') return undefined;
  const inflater = inflaterFor(encoding);
  if (!inflater) {
    throw new AppError('unsupported_media_type', `Content-Encoding "${header}" is not accepted; send gzip, deflate or an uncompressed body.`);
  }
  let decompressed = 0;
  const body = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      decompressed += chunk.length;
      if (decompressed > limit) callback(new AppError('payload_too_large', `The decompressed request body is larger than ${limit / 1024 / 1024} MiB.`));
      else callback(null, chunk);
    },
  }) as EncodedBody;
  body.receivedEncodedLength = 0;
  payload.on('data', (chunk: Buffer) => (body.receivedEncodedLength += chunk.length));
  // A connection closed before the body ended (the request timeout included) fails the body, as it fails a plain one.
  payload.once('error', (error) => body.destroy(error));
  inflater.on('error', () => body.destroy(invalidRequest(`The request body is not complete ${encoding} data (truncated, corrupt, or not compressed as Content-Encoding says).`)));
  body.on('close', () => {
    payload.unpipe(inflater);
    inflater.destroy();
  });
  payload.pipe(inflater).pipe(body);
  return body;
}

function inflaterFor(encoding: string): Gunzip | Inflate | undefined {
  if (encoding === 'gzip' || encoding === 'x-gzip') return createGunzip();
  if (encoding === 'deflate') return createInflate();
  return undefined;
}
