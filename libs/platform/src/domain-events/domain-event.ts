/**
 * What the domain announces to the outside world (webhooks today). Producers live in lower libs
 * (models, predictions) and must not know who listens, so the announcement is a job on its own
 * queue; libs/webhooks consumes it and fans it out to the organization's subscriptions.
 */
export interface DomainEventData {
  'prediction.updated': {
    userId: string;
    model: string;
    modelId: string;
    version: number;
    label: string;
    previousLabel: string;
    confidence: number;
  };
  'model.retrained': {
    modelId: string;
    model: string;
    version: number;
    /** false when the new version was kept as a rejected challenger. */
    promoted: boolean;
    auc: number;
    accuracy: number;
    rejectionReason: string | null;
  };
  'model.failed': { modelId: string; model: string; error: string };
  'drift.detected': { modelId: string; model: string; version: number; status: 'moderate' | 'high'; psi: number; delta: number };
  /** Users who joined an audience with a bulk scoring run (or its first computation), up to AUDIENCE_BATCH_USERS per event. */
  'audience.entered': AudienceChange;
  /** Users who left an audience with a bulk scoring run, up to AUDIENCE_BATCH_USERS per event. */
  'audience.left': AudienceChange;
  /** Sent to one endpoint when an admin asks for a test event; nobody subscribes to it. */
  'webhook.test': { webhookId: string; message: string };
}

/** One batch of an audience's entries or departures: the users in user id order, `batch` counting from 0 within the run. */
export interface AudienceChange {
  audienceId: string;
  audience: string;
  modelId: string;
  label: string;
  /** The bulk scoring run that recomputed the audience; the audience id for its first computation. */
  runId: string;
  batch: number;
  userIds: string[];
}

/** Users per audience.entered / audience.left event: one delivery per batch, not one per user. */
export const AUDIENCE_BATCH_USERS = 1_000;

export type DomainEventType = keyof DomainEventData;

/** The kinds an endpoint subscribes to. */
export const DOMAIN_EVENT_TYPES = ['prediction.updated', 'model.retrained', 'model.failed', 'drift.detected', 'audience.entered', 'audience.left'] as const satisfies readonly DomainEventType[];
export type SubscribableEventType = (typeof DOMAIN_EVENT_TYPES)[number];
/** What a delivery can carry: the subscribed kinds and the test event. */
export const DELIVERED_EVENT_TYPES = [...DOMAIN_EVENT_TYPES, 'webhook.test'] as const satisfies readonly DomainEventType[];

export interface DomainEvent<T extends DomainEventType = DomainEventType> {
  /** `evt_…`, stable across redelivery: receivers dedupe on it. */
  id: string;
  type: T;
  organizationId: string;
  createdAt: string;
  data: DomainEventData[T];
}

/** The user an event is about (prediction.updated), kept beside the event where erasure finds it; null for an event about no one user (an audience batch lists its users in its data). */
export function userOfEvent(event: DomainEvent): string | null {
  return 'userId' in event.data ? event.data.userId : null;
}
