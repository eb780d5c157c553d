/** The API's error codes. The HTTP status for each is decided in apps/api only. */
export type ErrorCode =
  | 'invalid_request'
  | 'pii_detected'
  | 'invalid_token'
  | 'insufficient_scope'
  | 'not_found'
  | 'request_timeout'
  | 'precondition_failed'
  | 'payload_too_large'
  | 'unsupported_media_type'
  | 'range_not_satisfiable'
  | 'rate_limited'
  | 'internal_error'
  | 'unavailable';

export interface ErrorDetail {
  path: string;
  message: string;
}

/** A failure the caller can act on. Domain libs throw it; delivery layers translate it. */
export class AppError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: ErrorDetail[],
  ) {
    super(message);
    this.name = 'AppError';
  }
}

export function notFound(what: string): AppError {
  return new AppError('not_found', `${what} not found`);
}

export function invalidRequest(message: string, details?: ErrorDetail[]): AppError {
  return new AppError('invalid_request', message, details);
}
