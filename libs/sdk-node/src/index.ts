export { createApiClient, type ForesightApi, type ForesightApiOptions } from './api-client';
export {
  AuthenticationError,
  ConnectionError,
  ForesightError,
  InvalidRequestError,
  NotFoundError,
  PayloadTooLargeError,
  PermissionError,
  RateLimitedError,
  RetryableError,
  ServerError,
  UnavailableError,
} from './errors';
export { type EventMessage, Foresight, type ForesightOptions, type IdentifyMessage, type PageMessage, type ScreenMessage } from './foresight';
export type { components, operations, paths } from './generated/openapi';
export type { ConnectionOptions } from './http';
export { API_ROUTES, type InputOf, type OutputOf, type RowOf } from './routes';
export { verifyWebhook, type VerifyWebhookOptions, type WebhookEvent, WebhookVerificationError } from './webhooks';
