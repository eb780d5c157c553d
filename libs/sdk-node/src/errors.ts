/** Every failure the API answers with: the `{error, message, details?}` body. */
export class ForesightError extends Error {
  override name = 'ForesightError';

  constructor(
    /** HTTP status; 0 when no answer came (see ConnectionError). */
    readonly status: number,
    /** The API's machine-readable code: `invalid_request`, `not_found`, `rate_limited`, … */
    readonly code: string,
    message: string,
    readonly details?: ReadonlyArray<{ path: string; message: string }>,
  ) {
    super(message);
  }
}

export class InvalidRequestError extends ForesightError {
  override name = 'InvalidRequestError';
}

export class AuthenticationError extends ForesightError {
  override name = 'AuthenticationError';
}

export class PermissionError extends ForesightError {
  override name = 'PermissionError';
}

export class NotFoundError extends ForesightError {
  override name = 'NotFoundError';
}

export class PayloadTooLargeError extends ForesightError {
  override name = 'PayloadTooLargeError';
}

/** 429 (rate limited) and 503 (Postgres or Redis unreachable): worth trying again after `retryAfter` seconds. */
export class RetryableError extends ForesightError {
  override name = 'RetryableError';

  constructor(status: number, code: string, message: string, readonly retryAfter: number | undefined) {
    super(status, code, message);
  }
}

export class RateLimitedError extends RetryableError {
  override name = 'RateLimitedError';
}

export class UnavailableError extends RetryableError {
  override name = 'UnavailableError';
}

export class ServerError extends ForesightError {
  override name = 'ServerError';
}

/** No HTTP answer at all: refused, reset or timed out. */
export class ConnectionError extends ForesightError {
  override name = 'ConnectionError';

  constructor(cause: unknown) {
    super(0, 'connection_failed', `no answer from the Foresight API: ${cause instanceof Error ? cause.message : String(cause)}`);
    this.cause = cause;
  }
}

interface ErrorBody {
  error?: unknown;
  message?: unknown;
  details?: unknown;
  retry_after?: unknown;
}

/** The typed error for a non-2xx answer. */
export function errorFor(status: number, body: unknown, retryAfterHeader: number | undefined): ForesightError {
  const fields: ErrorBody = typeof body === 'object' && body !== null ? body : {};
  const code = typeof fields.error === 'string' ? fields.error : `http_${status}`;
  const message = typeof fields.message === 'string' ? fields.message : `${code} (HTTP ${status})`;
  if (status === 429 || status === 503) {
    const retryAfter = retryAfterHeader ?? (typeof fields.retry_after === 'number' ? fields.retry_after : undefined);
    return status === 429 ? new RateLimitedError(status, code, message, retryAfter) : new UnavailableError(status, code, message, retryAfter);
  }
  const details = Array.isArray(fields.details) ? (fields.details as Array<{ path: string; message: string }>) : undefined;
  const ErrorClass = ERROR_CLASSES[status] ?? (status >= 500 ? ServerError : ForesightError);
  return new ErrorClass(status, code, message, details);
}

const ERROR_CLASSES: Record<number, typeof ForesightError> = {
  400: InvalidRequestError,
  401: AuthenticationError,
  403: PermissionError,
  404: NotFoundError,
  413: PayloadTooLargeError,
};
