import { HttpException } from '@nestjs/common';
import { RateLimitedError } from '@foresight/auth';
import { AppError, type ErrorCode, type ErrorDetail, isDatabasePoolExhausted, isInfrastructureUnavailable, postgresErrorCode } from '@foresight/platform';

const STATUS_BY_CODE: Record<ErrorCode, number> = {
  invalid_request: 400,
  pii_detected: 400,
  invalid_token: 401,
  insufficient_scope: 403,
  not_found: 404,
  request_timeout: 408,
  precondition_failed: 412,
  payload_too_large: 413,
  unsupported_media_type: 415,
  range_not_satisfiable: 416,
  rate_limited: 429,
  internal_error: 500,
  unavailable: 503,
};

type KnownError = { code: ErrorCode; message: string };

/**
 * Fastify's own request errors (URL, body parsing, limits) and Node's HTTP parser errors (a client
 * error handled before Fastify sees a request) in the API's error terms. The other FST_ERR_* codes of
 * fastify/lib/errors.js are set-up or reply faults of ours, answered as internal_error.
 */
const FASTIFY_ERRORS: Record<string, KnownError> = {
  FST_ERR_CTP_BODY_TOO_LARGE: { code: 'payload_too_large', message: 'The request body is larger than 1 MiB.' },
  FST_ERR_CTP_INVALID_MEDIA_TYPE: { code: 'unsupported_media_type', message: 'The request body must be application/json.' },
  FST_ERR_CTP_EMPTY_JSON_BODY: { code: 'invalid_request', message: 'The request body is empty; send a JSON document.' },
  FST_ERR_CTP_INVALID_JSON_BODY: { code: 'invalid_request', message: 'The request body is not valid JSON.' },
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: { code: 'invalid_request', message: 'The Content-Length header does not match the body.' },
  FST_ERR_BAD_URL: { code: 'invalid_request', message: 'The URL path is not validly percent-encoded.' },
  FST_ERR_MAX_PARAM_LENGTH: { code: 'invalid_request', message: 'A path segment of the URL is longer than 100 characters.' },
  HPE_HEADER_OVERFLOW: { code: 'invalid_request', message: 'The request headers are larger than the server accepts.' },
  ERR_HTTP_REQUEST_TIMEOUT: { code: 'request_timeout', message: 'The request did not arrive in time; the connection is closed.' },
};

/** Any other error of Node's HTTP parser (bad header, Content-Length, method, chunking). */
const MALFORMED_HTTP: KnownError = { code: 'invalid_request', message: 'The request is not well-formed HTTP (request line, a header, Content-Length or chunked encoding).' };

/**
 * Postgres refusing a value: input that got past validation, or a race (two requests creating one
 * unique name). The body says what kind of problem it is, never the constraint, column or values.
 */
const DATABASE_REFUSALS: Record<string, KnownError> = {
  '23505': { code: 'invalid_request', message: 'Something with the same unique value already exists.' },
  '23503': { code: 'invalid_request', message: 'The request refers to something that does not exist, or no longer does.' },
  '23514': { code: 'invalid_request', message: 'A value is outside what is accepted.' },
  '22P02': { code: 'invalid_request', message: 'A value is malformed for its type.' },
  '22007': { code: 'invalid_request', message: 'A date or time is malformed.' },
  '22008': { code: 'invalid_request', message: 'A date or time is out of range.' },
  '22003': { code: 'invalid_request', message: 'A number is out of range.' },
  '22001': { code: 'invalid_request', message: 'A value is too long.' },
  '22021': { code: 'invalid_request', message: 'A text value holds a character that cannot be stored (such as NUL).' },
  '22P05': { code: 'invalid_request', message: 'A text value holds a character that cannot be stored (such as NUL).' },
};

const STATUS_FALLBACK_CODES: Record<number, ErrorCode> = {
  400: 'invalid_request',
  404: 'not_found',
  413: 'payload_too_large',
  415: 'unsupported_media_type',
};

export const UNAVAILABLE_RETRY_AFTER_SECONDS = 5;

export interface ErrorResponse {
  status: number;
  body: { error: ErrorCode; message: string; details?: ErrorDetail[] } | { error: 'rate_limited'; retry_after: number };
  headers: Record<string, string>;
  /** True for faults of ours: logged with the stack and a correlation id. */
  unexpected: boolean;
}

/** The single translation from any thrown value to the API's error body and status. */
export function toErrorResponse(error: unknown): ErrorResponse {
  if (error instanceof RateLimitedError) {
    const seconds = String(error.retryAfterSeconds);
    return {
      status: 429,
      body: { error: 'rate_limited', retry_after: error.retryAfterSeconds },
      headers: { 'retry-after': seconds },
      unexpected: false,
    };
  }
  if (error instanceof AppError) {
    return known(error.code, error.message, error.details);
  }
  if (isDatabasePoolExhausted(error)) {
    return known('unavailable', 'Every database connection of this server stayed busy until the wait for one timed out (the database is slow or stopped answering); try again shortly.');
  }
  if (isInfrastructureUnavailable(error)) {
    return known('unavailable', 'A backing service (Postgres or Redis) is unreachable; try again shortly.');
  }
  const refusal = DATABASE_REFUSALS[postgresErrorCode(error) ?? ''];
  if (refusal) return known(refusal.code, refusal.message);
  const staticFile = staticFileRefusal(error);
  if (staticFile) return staticFile;
  const fastify = fastifyError(error);
  if (fastify) return known(fastify.code, fastify.message);
  if (error instanceof HttpException) {
    const code = STATUS_FALLBACK_CODES[error.getStatus()];
    if (code) return known(code, error.getStatus() === 404 ? error.message.replace(/^Cannot /, 'No route ') : error.message);
  }
  return {
    status: 500,
    body: { error: 'internal_error', message: 'Something went wrong on our side; the correlation id is in the X-Correlation-Id header.' },
    headers: {},
    unexpected: true,
  };
}

function known(code: ErrorCode, message: string, details?: ErrorDetail[]): ErrorResponse {
  const headers: Record<string, string> = {};
  if (code === 'invalid_token') headers['www-authenticate'] = 'Bearer error="invalid_token"';
  if (code === 'insufficient_scope') headers['www-authenticate'] = 'Bearer error="insufficient_scope"';
  // Every 503, whether a driver error or a domain's AppError('unavailable'), tells when to come back.
  if (code === 'unavailable') headers['retry-after'] = String(UNAVAILABLE_RETRY_AFTER_SECONDS);
  return { status: STATUS_BY_CODE[code], body: details ? { error: code, message, details } : { error: code, message }, headers, unexpected: false };
}

/**
 * The static file server's refusals (@fastify/static and its send, behind /dashboard and the docs'
 * assets), which reach the filter as an HttpException Nest made of the plugin's error: the only
 * framework errors with these statuses. A path it will not serve (`..`, an encoded slash or backslash,
 * NUL) is answered as a file that is not there, revealing nothing of what lies outside.
 */
function staticFileRefusal(error: unknown): ErrorResponse | undefined {
  if (!(error instanceof HttpException) || !(error.cause instanceof Error)) return undefined;
  const { statusCode, headers } = error.cause as { statusCode?: unknown; headers?: Record<string, string> };
  if (statusCode === 403) return known('not_found', 'No such file.');
  if (statusCode === 412) return known('precondition_failed', 'The file does not meet the If-Match or If-Unmodified-Since condition.');
  if (statusCode !== 416) return undefined;
  const refusal = known('range_not_satisfiable', 'The requested range is not within the file.');
  // `bytes */<size>`, as RFC 9110 asks of a 416: the file's length, for a client to ask again.
  const contentRange = headers?.['Content-Range'];
  if (contentRange !== undefined) refusal.headers['content-range'] = contentRange;
  return refusal;
}

function fastifyError(error: unknown): KnownError | undefined {
  if (!(error instanceof Error)) return undefined;
  const { code, statusCode } = error as { code?: unknown; statusCode?: unknown };
  if (typeof code === 'string' && Object.hasOwn(FASTIFY_ERRORS, code)) return FASTIFY_ERRORS[code];
  if (typeof code === 'string' && code.startsWith('HPE_')) return MALFORMED_HTTP;
  // Fastify's JSON parser throws a SyntaxError tagged with status 400.
  if (error instanceof SyntaxError && statusCode === 400) return FASTIFY_ERRORS.FST_ERR_CTP_INVALID_JSON_BODY;
  if (typeof statusCode === 'number' && STATUS_FALLBACK_CODES[statusCode]) {
    return { code: STATUS_FALLBACK_CODES[statusCode], message: error.message };
  }
  return undefined;
}
