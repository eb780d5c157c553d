export const LIBRARY = { name: 'foresight-web', version: '0.1.0' };

/** One event as POST /v1/events accepts it. */
export interface SdkEvent {
  event: string;
  /** Generated once, kept through retries: the server stores a resent event once. */
  messageId: string;
  timestamp: string;
  sessionId: string;
  anonymousId: string;
  /** Only after the developer called identify(). */
  userId?: string;
  properties?: Record<string, unknown>;
  context: Record<string, unknown>;
}

export interface Identity {
  anonymousId: string;
  userId?: string;
}

export interface EventDraft {
  event: string;
  properties?: Record<string, unknown>;
  /** Epoch milliseconds of the moment the event happened (not when it was queued or sent). */
  at: number;
  sessionId: string;
  messageId: string;
  identity: Identity;
  /** The page the event happened on, already stripped by pageUrl(). */
  url?: string;
}

export function buildEvent(draft: EventDraft): SdkEvent {
  const { event, properties, at, sessionId, messageId, identity, url } = draft;
  return {
    event,
    messageId,
    timestamp: new Date(at).toISOString(),
    sessionId,
    anonymousId: identity.anonymousId,
    ...(identity.userId === undefined ? {} : { userId: identity.userId }),
    ...(properties && Object.keys(properties).length > 0 ? { properties } : {}),
    context: url === undefined ? { library: LIBRARY } : { library: LIBRARY, page: { url } },
  };
}

/**
 * Origin and path only: query strings and fragments often carry e-mail addresses, tokens or
 * search terms (the example page keeps its token in the fragment).
 */
export function pageUrl(href: string): string {
  const url = new URL(href);
  return url.origin + url.pathname;
}

const EVENT_NAME = /^[A-Za-z0-9 _.:/-]{1,128}$/;

/**
 * The server validates a batch all-or-nothing, so a bad name would take the other events of its
 * batch with it: names are checked before they are queued.
 */
export function isValidEventName(name: unknown): name is string {
  return typeof name === 'string' && EVENT_NAME.test(name);
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Indexes of the events a 400 response names in `details[].path` (`<index>.<field>` in a batch). */
export function rejectedIndexes(body: unknown): number[] {
  const details = isPlainObject(body) && Array.isArray(body.details) ? body.details : [];
  const indexes = details
    .map((detail: unknown) => (isPlainObject(detail) && typeof detail.path === 'string' ? /^(\d+)(\.|$)/.exec(detail.path) : null))
    .filter((match): match is RegExpExecArray => match !== null)
    .map((match) => Number(match[1]));
  return [...new Set(indexes)];
}
