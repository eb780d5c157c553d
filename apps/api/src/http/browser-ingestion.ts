import { createHmac, timingSafeEqual } from 'node:crypto';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import { invalidRequest, type AppError } from '@foresight/platform';

/** `v1=` and the hex HMAC-SHA-256 of the exact body bytes, keyed with the bearer token (libs/sdk-web signs so). */
const SIGNATURE_HEADER = 'x-foresight-signature';
const SIGNATURE = /^v1=([0-9a-f]{64})$/i;

/** The routes SDKs post to from customers' sites: the only ones that answer cross-origin requests. */
const INGESTION_PATHS = new Set(['/v1/events', '/v1/batch', '/v1/track', '/v1/identify', '/v1/page', '/v1/screen']);

/**
 * CORS for the ingestion routes, with fixed headers, since every site may embed the SDK. The token
 * in the Authorization header is the credential, never a cookie, so no credentials mode: a page
 * cannot ride on a visitor's session with us. Chromium caps the preflight cache at 2 hours.
 */
const CROSS_ORIGIN_HEADERS = {
  'access-control-allow-origin': '*',
  'access-control-expose-headers': 'retry-after, ratelimit-limit, ratelimit-remaining, ratelimit-reset',
};
const PREFLIGHT_HEADERS = {
  'access-control-allow-origin': '*',
  'access-control-allow-methods': 'POST',
  'access-control-allow-headers': `authorization, content-type, ${SIGNATURE_HEADER}`,
  'access-control-max-age': '7200',
};

/**
 * What browser SDKs need from the HTTP layer: CORS on the ingestion routes only, and the request
 * signature checked against the raw body.
 *
 * CORS is attached as route-level hooks and preflight routes of the ingestion paths alone, not as a
 * global hook (@fastify/cors): a global hook, even one that decides "no CORS here", cost every other
 * route about 18% of its throughput (bench:http). The signature check runs in the JSON parser, where
 * the raw bytes are at hand, so no copy of the body is kept on the request; parsing itself stays
 * Fastify's own (prototype-poisoning safe) and its errors keep their CONTRACT.md mapping.
 */
export function acceptBrowserIngestion(app: NestFastifyApplication): void {
  const fastify = app.getHttpAdapter().getInstance();
  fastify.addHook('onRoute', (route) => {
    if ([route.method].flat().includes('POST') && INGESTION_PATHS.has(route.url)) {
      route.onRequest = [...[route.onRequest ?? []].flat(), allowCrossOrigin];
    }
  });
  for (const path of INGESTION_PATHS) fastify.options(path, answerPreflight);

  const parseJson = fastify.getDefaultJsonParser('error', 'error');
  fastify.removeContentTypeParser('application/json');
  fastify.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, body: Buffer, done) => {
    const refusal = signatureRefusal(request, body);
    if (refusal) done(refusal, undefined);
    else parseJson(request, body.toString('utf8'), done);
  });
}

function allowCrossOrigin(_request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction): void {
  void reply.headers(CROSS_ORIGIN_HEADERS);
  done();
}

async function answerPreflight(request: FastifyRequest, reply: FastifyReply): Promise<void> {
  if (request.headers.origin === undefined || request.headers['access-control-request-method'] === undefined) {
    throw invalidRequest('A CORS preflight needs the Origin and Access-Control-Request-Method headers.');
  }
  await reply.code(204).headers(PREFLIGHT_HEADERS).send();
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
