// The shapes of the /v1 answers the dashboard reads, taken from the types generated from the API's
// own OpenAPI document (the Node SDK's build writes them), so the dashboard and the API cannot drift.
import type { paths } from '@foresight/api-types';

type Operation<P extends keyof paths, M extends 'get' | 'post' | 'patch' | 'delete'> = NonNullable<paths[P][M]>;
type Ok<P extends keyof paths, M extends 'get' | 'post' | 'patch' | 'delete' = 'get'> =
  Operation<P, M> extends { responses: { 200: { content: { 'application/json': infer B } } } } ? B : never;
type Body<P extends keyof paths, M extends 'post' | 'patch'> =
  Operation<P, M> extends { requestBody?: { content: { 'application/json': infer B } } } ? B : never;
type Item<T> = T extends ReadonlyArray<infer E> ? E : never;

export type CurrentToken = Ok<'/v1/tokens/current'>;
export type Scope = Item<CurrentToken['scopes']>;

export type ModelSummary = Item<Ok<'/v1/models'>>;
export type ModelDetails = Ok<'/v1/models/{modelId}'>;
/** What the model's mutations answer: the details without the health history. */
export type ChangedModel = Ok<'/v1/models/{modelId}', 'patch'>;
export type DeletedModel = Ok<'/v1/models/{modelId}', 'delete'>;
export type DayHealth = Item<ModelDetails['health']>;
export type ModelStatus = ModelDetails['status'];
export type Algorithm = ModelDetails['algorithm'];
export type ModelKind = ModelDetails['kind'];
export type CreateModel = Body<'/v1/models', 'post'>;

export type AudienceSummary = Item<Ok<'/v1/audiences'>>;
export type AudienceDetails = Ok<'/v1/audiences/{audienceId}'>;
export type AudienceRule = AudienceSummary['rule'];
export type CreateAudience = Body<'/v1/audiences', 'post'>;
export type DeletedAudience = Ok<'/v1/audiences/{audienceId}', 'delete'>;

export type ModelVersion = Item<Ok<'/v1/models/{modelId}/versions'>['versions']>;
export type ValidationMetrics = ModelVersion['metrics'];
export type ValidationCurves = NonNullable<ModelVersion['curves']>;
export type FeatureWeight = Item<ModelVersion['featureImportance']>;
export type ThresholdPoint = Item<ValidationCurves['thresholds']>;

export type MonitoringFigures = Ok<'/v1/models/monitor/{modelId}'>;
export type MonitoringPoint = Item<Ok<'/v1/models/monitor/{modelId}/history'>['points']>;
export type DriftStatus = MonitoringFigures['drift']['status'];

export type EventVolume = Ok<'/v1/events/volume'>;
export type IngestionStats = Ok<'/v1/events/ingestion'>;
export type Prediction = Item<Ok<'/v1/predict'>['predictions']>;
export type PredictionExplanation = NonNullable<Prediction['explanation']>;
export type Session = Item<Ok<'/v1/users/sessions'>['sessions']>;
export type RecentEvent = Item<Ok<'/v1/users/events'>['events']>;

export type TokenView = Item<Ok<'/v1/tokens'>>;
export type CreateToken = Body<'/v1/tokens', 'post'>;
export type IssuedToken = Ok<'/v1/tokens', 'post'>;
export type LiveEvents = Ok<'/v1/events/live'>;
export type LiveEvent = Item<LiveEvents['events']>;
export type Webhook = Item<Ok<'/v1/webhooks'>>;
export type CreateWebhook = Body<'/v1/webhooks', 'post'>;
export type CreatedWebhook = Ok<'/v1/webhooks', 'post'>;
export type WebhookDelivery = Item<Ok<'/v1/webhooks/{webhookId}/deliveries'>>;
export type WebhookEventKind = Item<Webhook['events']>;

export type UserExport = Ok<'/v1/users/export'>;
export type Erasure = Item<Ok<'/v1/users/erasures'>['erasures']>;

export type OrganizationSettings = Ok<'/v1/organization'>;
export type SettingsChange = Body<'/v1/organization', 'patch'>;

export type AuditEntry = Item<Ok<'/v1/audit'>['entries']>;
export type AuditAction = AuditEntry['action'];

export interface ApiErrorBody {
  error: string;
  message?: string;
}

/**
 * GET /auth/session: how this deployment lets people sign in, and who is signed in through single
 * sign-on. Outside /v1 and the OpenAPI document (it serves the dashboard alone), so written here.
 */
export interface SignInState {
  tokenSignIn: boolean;
  singleSignOn: boolean;
  session: {
    person: { subject: string; email: string | null; name: string | null };
    organizationId: string;
    role: 'viewer' | 'editor' | 'admin';
    scopes: string[];
    csrfToken: string;
  } | null;
}
