import { HttpException } from '@nestjs/common';
import { RateLimitedError } from '@foresight/auth';
import { AppError, isInfrastructureUnavailable, type ErrorCode, type ErrorDetail } from '@foresight/platform';

const STATUS_BY_CODE: Record<ErrorCode, number> = {
  invalid_request: 400,
  pii_detected: 400,
  invalid_token: 401,
  insufficient_scope: 403,
  not_found: 404,
  payload_too_large: 413,
  unsupported_media_type: 415,
  rate_limited: 429,
  internal_error: 500,
  unavailable: 503,
};

/** Fastify's own request errors (body parsing, limits) in CONTRACT.md terms. */
const FASTIFY_ERRORS: Record<string, { code: ErrorCode; message: string }> = {
  FST_ERR_CTP_BODY_TOO_LARGE: { code: 'payload_too_large', message: 'The request body is larger than 1 MiB.' },
  FST_ERR_CTP_INVALID_MEDIA_TYPE: { code: 'unsupported_media_type', message: 'The request body must be application/json.' },
  FST_ERR_CTP_EMPTY_JSON_BODY: { code: 'invalid_request', message: 'The request body is empty; send a JSON document.' },
  FST_ERR_CTP_INVALID_JSON_BODY: { code: 'invalid_request', message: 'The request body is not valid JSON.' },
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: { code: 'invalid_request', message: 'The Content-Length header does not match the body.' },
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

/** The single translation from any thrown value to the CONTRACT.md error body and status. */
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
  if (isInfrastructureUnavailable(error)) {
    return known('unavailable', 'A backing service (Postgres or Redis) is unreachable; try again shortly.');
  }
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

function fastifyError(error: unknown): { code: ErrorCode; message: string } | undefined {
  if (!(error instanceof Error)) return undefined;
  const { code, statusCode } = error as { code?: unknown; statusCode?: unknown };
  if (typeof code === 'string' && FASTIFY_ERRORS[code]) return FASTIFY_ERRORS[code];
  // Fastify's JSON parser throws a SyntaxError tagged with status 400.
  if (error instanceof SyntaxError && statusCode === 400) return FASTIFY_ERRORS.FST_ERR_CTP_INVALID_JSON_BODY;
  if (typeof statusCode === 'number' && STATUS_FALLBACK_CODES[statusCode]) {
    return { code: STATUS_FALLBACK_CODES[statusCode], message: error.message };
  }
  return undefined;
}
