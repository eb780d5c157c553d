import { isUtf8 } from 'node:buffer';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction, RequestPayload } from 'fastify';
import { AppError, invalidRequest } from '@foresight/platform';
import { decompressedBody } from './compressed-body';
import { deferNulRefusal, nulBytePath, scanJson, tooDeep } from './json-body';

/** The Segment call types, each with a route of its own (events.controller.ts). */
const SEGMENT_CALLS = ['track', 'identify', 'page', 'screen', 'alias', 'group'];

/**
 * The Segment-compatible routes: real SDKs post JSON to them as text/plain
 * (analytics-kotlin, analytics.js) or application/x-www-form-urlencoded (rudder-sdk-node), so any of
 * the three content types is read as JSON here, and only here. analytics.js posts each call to its
 * initial (`/v1/t`, `/v1/i`, …) when it does not batch.
 */
export const SEGMENT_PATHS: ReadonlySet<string> = new Set([
  '/v1/batch',
  '/v1/b',
  ...SEGMENT_CALLS.flatMap((call) => [`/v1/${call}`, `/v1/${call.charAt(0)}`]),
]);

/** The routes SDKs post to from customers' sites: the only ones that answer cross-origin requests or take compressed bodies. */
export const INGESTION_PATHS: ReadonlySet<string> = new Set(['/v1/events', ...SEGMENT_PATHS]);

/** The settings browser SDKs fetch before sending (analytics.js, RudderStack's JS SDK): cross-origin GETs. */
export const SDK_SETTINGS_PATHS: ReadonlySet<string> = new Set(['/v1/projects/:writeKey/settings', '/sourceConfig']);

/**
 * Fastify's rewriteUrl: RudderStack's JS SDK v3 fetches `<configUrl>/sourceConfig/?p=npm&…` (with the
 * slash) unless configUrl itself ends in /sourceConfig (getSourceConfigURL), and Nest cannot declare a
 * route with a trailing slash; that one path is read as /sourceConfig, every other URL is left alone.
 */
export function withoutSourceConfigSlash(request: { url?: string }): string {
  const url = request.url ?? '/';
  return url === '/sourceConfig/' || url.startsWith('/sourceConfig/?') ? `/sourceConfig${url.slice('/sourceConfig/'.length)}` : url;
}

/** The body limit; for a compressed body, the decompressed size. */
export const BODY_LIMIT_BYTES = 1024 * 1024;

/**
 * CORS for the ingestion routes, with fixed headers, since every site may embed the SDK. The token
 * in the Authorization header is the credential, never a cookie, so no credentials mode: a page
 * cannot ride on a visitor's session with us. Chromium caps the preflight cache at 2 hours.
 */
const CROSS_ORIGIN_HEADERS = {
  'access-control-allow-origin': '*',
  'access-control-expose-headers': 'retry-after, ratelimit-limit, ratelimit-remaining, ratelimit-reset',
};
/**
 * The request headers browser SDKs set besides Authorization and Content-Type: analytics.js adds
 * X-Retry-Count to a retry (plugins/segmentio/fetch-dispatcher.js, batched-dispatcher.js);
 * RudderStack's JS SDK v3 sends AnonymousId and SentAt with every event, and Rsa-* on a retry or a
 * recovered event (XhrQueue plugin). A preflight that left one out would fail the whole request.
 */
const SDK_REQUEST_HEADERS = [
  'x-retry-count',
  'anonymousid',
  'sentat',
  'rsa-recovered',
  'rsa-retry-attempt',
  'rsa-since-last-attempt',
  'rsa-since-first-attempt',
  'rsa-retry-reason',
];
const PREFLIGHT_HEADERS = {
  'access-control-allow-origin': '*',
  'access-control-allow-methods': 'POST',
  'access-control-allow-headers': ['authorization', 'content-type', ...SDK_REQUEST_HEADERS].join(', '),
  'access-control-max-age': '7200',
};

/**
 * What browser SDKs need from the HTTP layer (CORS on the ingestion routes only), and the one JSON
 * body parser of every route.
 *
 * CORS is attached as route-level hooks and preflight routes of the ingestion paths alone, not as a
 * global hook (@fastify/cors): a global hook, even one that decides "no CORS here", cost every other
 * route about 18% of its throughput (bench:http).
 *
 * The parser bounds the nesting depth in one linear pass before Fastify's own (prototype-poisoning
 * safe) JSON parsing, whose errors keep their error mapping. On the other routes it also refuses
 * U+0000 in any string, naming the field; the ingestion routes validate each event's fields
 * themselves (libs/events), so a Segment batch keeps skipping its invalid messages only.
 * For the same reason a `__proto__` key (or `constructor.prototype`) refuses a whole body elsewhere,
 * but only its own event on the ingestion routes: there JSON.parse keeps it an own property (it never
 * reaches a prototype) and the event's shape check refuses it (libs/events, event-limits.ts).
 */
export function acceptBrowserIngestion(app: NestFastifyApplication): void {
  const fastify = app.getHttpAdapter().getInstance();
  fastify.addHook('onRoute', (route) => {
    if ([route.method].flat().includes('POST') && INGESTION_PATHS.has(route.url)) {
      route.onRequest = [...[route.onRequest ?? []].flat(), allowCrossOrigin];
      route.preParsing = [...[route.preParsing ?? []].flat(), decompress];
    }
    if ([route.method].flat().includes('GET') && SDK_SETTINGS_PATHS.has(route.url)) {
      route.onRequest = [...[route.onRequest ?? []].flat(), allowCrossOrigin];
    }
  });
  for (const path of INGESTION_PATHS) fastify.options(path, preflightAnswer(PREFLIGHT_HEADERS));
  for (const path of SDK_SETTINGS_PATHS) fastify.options(path, preflightAnswer({ ...PREFLIGHT_HEADERS, 'access-control-allow-methods': 'GET' }));

  type ParseDone = (error: Error | null, body?: unknown) => void;
  // Fastify's default JSON parser is the callback form (its declared type admits a promise form too).
  type JsonParser = (request: FastifyRequest, text: string, done: ParseDone) => void;
  const parseJson = fastify.getDefaultJsonParser('error', 'error') as JsonParser;
  const parseEventsJson = fastify.getDefaultJsonParser('ignore', 'ignore') as JsonParser;
  const parseBody = (request: FastifyRequest, body: Buffer, done: ParseDone): void => {
    // JSON is UTF-8 (RFC 8259): other bytes would be stored as U+FFFD, merging distinct ids into one.
    const charset = /;\s*charset\s*=\s*"?([^";\s]+)/i.exec(request.headers['content-type'] ?? '')?.[1];
    if (charset !== undefined && !/^utf-?8$/i.test(charset)) {
      done(new AppError('unsupported_media_type', `The request body must be UTF-8 JSON, not charset "${charset}".`), undefined);
      return;
    }
    if (!isUtf8(body)) {
      done(invalidRequest('The request body is not valid UTF-8.'), undefined);
      return;
    }
    const text = body.toString('utf8');
    // Ingestion routes validate each event themselves (libs/events: an iterative walk naming the
    // event and field, and Segment batches skip a bad message), and JSON.parse itself does not recurse.
    // Their compressed bodies were decompressed before this parser (preParsing).
    if (INGESTION_PATHS.has(request.routeOptions.url ?? '')) {
      parseEventsJson(request, text, done);
      return;
    }
    const encoding = request.headers['content-encoding'];
    if (encoding !== undefined && encoding.trim().toLowerCase() !== 'identity') {
      done(new AppError('unsupported_media_type', `Content-Encoding "${encoding}" is not accepted here; send the JSON body uncompressed.`), undefined);
      return;
    }
    const scan = scanJson(text);
    if (scan.tooDeep) {
      done(tooDeep(), undefined);
      return;
    }
    parseJson(request, text, (error, body) => {
      const field = !error && scan.hasNul ? nulBytePath(body) : undefined;
      if (field !== undefined) deferNulRefusal(request, field);
      done(error, body);
    });
  };
  fastify.removeContentTypeParser('application/json');
  fastify.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, body: Buffer, done) => parseBody(request, body, done));
  fastify.addContentTypeParser(['text/plain', 'application/x-www-form-urlencoded'], { parseAs: 'buffer' }, (request, body: Buffer, done) => {
    if (SEGMENT_PATHS.has(request.routeOptions.url ?? '')) parseBody(request, body, done);
    else done(new AppError('unsupported_media_type', 'The request body must be application/json.'), undefined);
  });
}

/** preParsing of the ingestion routes: a gzip or deflate body is read decompressed, within the body limit. */
function decompress(request: FastifyRequest, _reply: FastifyReply, payload: RequestPayload, done: (error: Error | null, payload?: RequestPayload) => void): void {
  try {
    done(null, (decompressedBody(payload, request.headers['content-encoding'], BODY_LIMIT_BYTES)) ?? payload);
  } catch (error) {
    done(error as Error);
  }
}

function allowCrossOrigin(_request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction): void {
  void reply.headers(CROSS_ORIGIN_HEADERS);
  done();
}

function preflightAnswer(headers: Record<string, string>): (request: FastifyRequest, reply: FastifyReply) => Promise<void> {
  return async (request, reply) => {
    if (request.headers.origin === undefined || request.headers['access-control-request-method'] === undefined) {
      throw invalidRequest('A CORS preflight needs the Origin and Access-Control-Request-Method headers.');
    }
    await reply.code(204).headers(headers).send();
  };
}
