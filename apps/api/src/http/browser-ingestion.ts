import { createHmac, timingSafeEqual } from 'node:crypto';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { FastifyRequest } from 'fastify';
import { invalidRequest, type AppError } from '@foresight/platform';

/** `v1=` and the hex HMAC-SHA-256 of the exact body bytes, keyed with the bearer token (libs/sdk-web signs so). */
const SIGNATURE_HEADER = 'x-foresight-signature';
const SIGNATURE = /^v1=([0-9a-f]{64})$/i;

/** The routes SDKs post to from customers' sites: the only ones that answer cross-origin requests. */
const INGESTION_PATHS = new Set(['/v1/events', '/v1/batch', '/v1/track', '/v1/identify', '/v1/page', '/v1/screen']);

type CorsOptions = Exclude<NonNullable<Parameters<NestFastifyApplication['enableCors']>[0]>, (...args: never[]) => unknown>;

const INGESTION_CORS: CorsOptions = {
  // Any site may embed the SDK. The token in the Authorization header is the credential, never a
  // cookie, so no credentials mode: a page cannot ride on a visitor's session with us.
  origin: '*',
  methods: ['POST'],
  allowedHeaders: ['authorization', 'content-type', SIGNATURE_HEADER],
  exposedHeaders: ['retry-after', 'ratelimit-limit', 'ratelimit-remaining', 'ratelimit-reset'],
  credentials: false,
  // Chromium caps the preflight cache at 2 hours.
  maxAge: 7200,
};

/**
 * What browser SDKs need from the HTTP layer: CORS on the ingestion routes only, and the request
 * signature checked against the raw body. The check runs in the JSON parser, where the raw bytes
 * are at hand, so no copy of the body is kept on the request; parsing itself stays Fastify's own
 * (prototype-poisoning safe) and its errors keep their CONTRACT.md mapping.
 */
export function acceptBrowserIngestion(app: NestFastifyApplication): void {
  app.enableCors({
    delegator: (request, callback) => callback(null, INGESTION_PATHS.has(request.url.split('?')[0]) ? INGESTION_CORS : { origin: false }),
  });
  const fastify = app.getHttpAdapter().getInstance();
  const parseJson = fastify.getDefaultJsonParser('error', 'error');
  fastify.removeContentTypeParser('application/json');
  fastify.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, body: Buffer, done) => {
    const refusal = signatureRefusal(request, body);
    if (refusal) done(refusal, undefined);
    else parseJson(request, body.toString('utf8'), done);
  });
}

/**
 * Unsigned requests (backends, Segment clients) pass as before. A signed one must match its body,
 * else 400 invalid_request rather than 401: the token may well be valid, it is the body that was
 * altered, and invalid_token (with its WWW-Authenticate challenge) would send the caller after the
 * wrong fault. Either way the SDK does not resend the batch.
 */
function signatureRefusal(request: FastifyRequest, body: Buffer): AppError | undefined {
  const header = request.headers[SIGNATURE_HEADER];
  // Without any Authorization header the access guard answers 401, as for every unauthenticated call.
  if (header === undefined || request.headers.authorization === undefined) return undefined;
  const signature = typeof header === 'string' ? SIGNATURE.exec(header.trim()) : null;
  if (!signature) return invalidRequest(`${SIGNATURE_HEADER} must be "v1=" followed by 64 hex digits.`);
  const token = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.authorization)?.[1];
  if (!token) return invalidRequest(`A request with ${SIGNATURE_HEADER} must authenticate with "Authorization: Bearer <token>", its signing key.`);
  const expected = createHmac('sha256', token).update(body).digest();
  if (timingSafeEqual(expected, Buffer.from(signature[1], 'hex'))) return undefined;
  return invalidRequest(`${SIGNATURE_HEADER} does not match the body: it was changed after signing, or signed with another token.`);
}
