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
  /** Sent to one endpoint when an admin asks for a test event; nobody subscribes to it. */
  'webhook.test': { webhookId: string; message: string };
}

export type DomainEventType = keyof DomainEventData;

/** The kinds an endpoint subscribes to. */
export const DOMAIN_EVENT_TYPES = ['prediction.updated', 'model.retrained', 'model.failed', 'drift.detected'] as const satisfies readonly DomainEventType[];
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
