import { csrfToken, storedToken } from '../auth/session';
import type {
  ApiErrorBody,
  AudienceDetails,
  AudienceSummary,
  AuditAction,
  AuditEntry,
  ChangedModel,
  CreateAudience,
  CreatedWebhook,
  CreateModel,
  CreateToken,
  CreateWebhook,
  CurrentToken,
  DeletedAudience,
  DeletedModel,
  Erasure,
  EventVolume,
  IngestionStats,
  IssuedToken,
  LiveEvents,
  ModelDetails,
  ModelSummary,
  ModelVersion,
  MonitoringFigures,
  MonitoringPoint,
  OrganizationSettings,
  Prediction,
  RecentEvent,
  Session,
  SettingsChange,
  SignInState,
  TokenView,
  UserExport,
  Webhook,
  WebhookDelivery,
} from './types';

/** An error answer of the API, with its error code and message. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/** Called when the API refuses the token (expired, revoked, unknown): the app returns to sign-in. */
let onTokenRefused: (message: string) => void = () => undefined;
export const whenTokenRefused = (listener: (message: string) => void): void => {
  onTokenRefused = listener;
};

type Query = Record<string, string | number | undefined>;

/** Sent with the session cookie on every call of a person signed in through single sign-on (CSRF protection). */
const CSRF_HEADER = 'x-foresight-csrf';

/**
 * Calls /v1 (or /auth, the sign-in routes) as whoever is signed in: a person's session cookie with its CSRF token, or the pasted token.
 * With `accept` (a download: CSV, say), a successful answer is its text as sent.
 */
async function call<T>(method: string, path: string, options: { query?: Query; body?: unknown; token?: string; accept?: string } = {}): Promise<T> {
  const url = new URL(path.startsWith('/auth/') ? path : `/v1${path}`, window.location.origin);
  for (const [name, value] of Object.entries(options.query ?? {})) if (value !== undefined) url.searchParams.set(name, String(value));
  const csrf = options.token === undefined ? csrfToken() : null;
  const headers: Record<string, string> = csrf === null ? { authorization: `Bearer ${options.token ?? storedToken() ?? ''}` } : { [CSRF_HEADER]: csrf };
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  if (options.accept !== undefined) headers.accept = options.accept;
  let response: Response;
  try {
    response = await fetch(url, { method, headers, body: options.body === undefined ? undefined : JSON.stringify(options.body), cache: 'no-store' });
  } catch {
    throw new ApiError(0, 'network', 'The Foresight API could not be reached. Check that the service is running and this network can reach it.');
  }
  const text = await response.text();
  if (response.ok && options.accept !== undefined) return text as T;
  const body = text ? (JSON.parse(text) as unknown) : undefined;
  if (response.ok) return body as T;
  const { error, message } = (body ?? {}) as ApiErrorBody;
  const failure = new ApiError(response.status, error ?? 'error', message ?? `The API answered ${response.status}.`);
  if (response.status === 401 && options.token === undefined) {
    onTokenRefused(csrf === null ? 'Your session ended: the token expired or was revoked. Sign in again with a valid token.' : `Your session ended: ${message ?? 'sign in again.'}`);
  }
  throw failure;
}

/** The one typed client of the /v1 API; pages never call fetch themselves. */
export const api = {
  signInState: () => call<SignInState>('GET', '/auth/session'),
  signOut: () => call<{ redirect: string | null }>('POST', '/auth/logout'),
  currentToken: (token?: string) => call<CurrentToken>('GET', '/tokens/current', { token }),
  models: () => call<ModelSummary[]>('GET', '/models'),
  model: (id: string) => call<ModelDetails>('GET', `/models/${encodeURIComponent(id)}`),
  createModel: (body: CreateModel) => call<ChangedModel>('POST', '/models', { body }),
  updateModel: (id: string, body: { name?: string; schedule?: string | null }) => call<ChangedModel>('PATCH', `/models/${encodeURIComponent(id)}`, { body }),
  deleteModel: (id: string) => call<DeletedModel>('DELETE', `/models/${encodeURIComponent(id)}`),
  retrain: (modelId: string) => call<{ modelId: string; status: 'retraining'; startedAt: string }>('POST', '/models/retrain', { body: { modelId } }),
  versions: (id: string) => call<{ modelId: string; versions: ModelVersion[] }>('GET', `/models/${encodeURIComponent(id)}/versions`),
  promote: (id: string, version: number) => call<ChangedModel>('POST', `/models/${encodeURIComponent(id)}/versions/${version}/promote`),
  monitoring: (id: string) => call<MonitoringFigures>('GET', `/models/monitor/${encodeURIComponent(id)}`),
  monitoringHistory: (id: string, since: string) => call<{ modelId: string; points: MonitoringPoint[] }>('GET', `/models/monitor/${encodeURIComponent(id)}/history`, { query: { since } }),
  eventVolume: (bucket: 'hour' | 'day', since?: string) => call<EventVolume>('GET', '/events/volume', { query: { bucket, since } }),
  ingestion: (bucket: 'hour' | 'day') => call<IngestionStats>('GET', '/events/ingestion', { query: { bucket } }),
  predict: (userId: string) => call<{ userId: string; predictions: Prediction[] }>('GET', '/predict', { query: { userId, explain: 'true' } }),
  sessions: (userId: string) => call<{ userId: string; sessions: Session[] }>('GET', '/users/sessions', { query: { userId } }),
  tokens: () => call<TokenView[]>('GET', '/tokens'),
  createToken: (body: CreateToken) => call<IssuedToken>('POST', '/tokens', { body }),
  revokeToken: (id: string) => call<TokenView>('DELETE', `/tokens/${encodeURIComponent(id)}`),
  liveEvents: (after?: string) => call<LiveEvents>('GET', '/events/live', { query: { after, limit: 50 } }),
  webhooks: () => call<Webhook[]>('GET', '/webhooks'),
  createWebhook: (body: CreateWebhook) => call<CreatedWebhook>('POST', '/webhooks', { body }),
  deleteWebhook: (id: string) => call<Webhook>('DELETE', `/webhooks/${encodeURIComponent(id)}`),
  deliveries: (id: string) => call<WebhookDelivery[]>('GET', `/webhooks/${encodeURIComponent(id)}/deliveries`, { query: { limit: 50 } }),
  sendTestEvent: (id: string) => call<WebhookDelivery>('POST', `/webhooks/${encodeURIComponent(id)}/test`),
  retryDelivery: (id: string, deliveryId: string) =>
    call<WebhookDelivery>('POST', `/webhooks/${encodeURIComponent(id)}/deliveries/${encodeURIComponent(deliveryId)}/retry`),
  exportUser: (userId: string) => call<UserExport>('GET', '/users/export', { query: { userId } }),
  eraseUser: (userId: string, suppress: boolean) => call<{ status: 'deleted'; userId: string }>('DELETE', '/users', { query: { userId, suppress: String(suppress) } }),
  erasures: () => call<{ erasures: Erasure[] }>('GET', '/users/erasures', { query: { limit: 50 } }),
  unsuppress: (userId: string) => call<{ userId: string; unsuppressed: boolean }>('DELETE', '/users/suppression', { query: { userId } }),
  organization: () => call<OrganizationSettings>('GET', '/organization'),
  updateOrganization: (body: SettingsChange) => call<OrganizationSettings>('PATCH', '/organization', { body }),
  audit: (filter: { action?: AuditAction; since?: string; until?: string }) => call<{ entries: AuditEntry[] }>('GET', '/audit', { query: filter }),
  audiences: () => call<AudienceSummary[]>('GET', '/audiences'),
  audience: (id: string) => call<AudienceDetails>('GET', `/audiences/${encodeURIComponent(id)}`),
  createAudience: (body: CreateAudience) => call<AudienceSummary>('POST', '/audiences', { body }),
  deleteAudience: (id: string) => call<DeletedAudience>('DELETE', `/audiences/${encodeURIComponent(id)}`),
  /** Every current member as CSV (userId, confidence, since), for a download. */
  audienceMembersCsv: (id: string) => call<string>('GET', `/audiences/${encodeURIComponent(id)}/members`, { accept: 'text/csv' }),
  recentEvents: (userId: string) => call<{ userId: string; events: RecentEvent[] }>('GET', '/users/events', { query: { userId, limit: 50 } }),
};
