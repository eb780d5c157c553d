/** One event as POST /v1/events accepts it. */
export interface SdkEvent {
  event: string;
  /** Generated once, kept through retries: the server stores a resent event once. */
  messageId: string;
  timestamp: string;
  sessionId?: string;
  anonymousId?: string;
  /** Only once the developer named the user. */
  userId?: string;
  properties?: Record<string, unknown>;
  context: Record<string, unknown>;
}

export interface Identity {
  anonymousId?: string;
  userId?: string;
}

export interface EventDraft {
  event: string;
  properties?: Record<string, unknown>;
  /** Epoch milliseconds of the moment the event happened (not when it was queued or sent). */
  at: number;
  sessionId?: string;
  messageId: string;
  identity: Identity;
  /** The SDK's name and version, and whatever the platform adds (the page). */
  context: Record<string, unknown>;
}

/** The server's limits: 32 KiB per event, 1,000 events and 1 MiB per request. */
export const MAX_EVENT_BYTES = 32 * 1024;
export const MAX_REQUEST_EVENTS = 1_000;
/** Below the server's 1 MiB, leaving room for the array's commas and brackets. */
export const MAX_REQUEST_BYTES = 1_000_000;

export function buildEvent(draft: EventDraft): SdkEvent {
  const { event, properties, at, sessionId, messageId, identity, context } = draft;
  return {
    event,
    messageId,
    timestamp: new Date(at).toISOString(),
    ...(sessionId === undefined ? {} : { sessionId }),
    ...(identity.anonymousId === undefined ? {} : { anonymousId: identity.anonymousId }),
    ...(identity.userId === undefined ? {} : { userId: identity.userId }),
    ...(properties && Object.keys(properties).length > 0 ? { properties } : {}),
    context,
  };
}

/** UTF-8 size of the event as it is sent. */
export function eventBytes(event: SdkEvent): number {
  return utf8Length(JSON.stringify(event));
}

/** Counted rather than encoded: not every platform has TextEncoder (older React Native). */
export function utf8Length(text: string): number {
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if (unit < 0x80) bytes += 1;
    else if (unit < 0x800) bytes += 2;
    else if (unit >= 0xd800 && unit <= 0xdbff && i + 1 < text.length) {
      bytes += 4; // a surrogate pair is one code point of four bytes
      i++;
    } else bytes += 3;
  }
  return bytes;
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

/** Why a track() call cannot be queued, or undefined when it can. */
export function trackProblem(event: unknown, properties: unknown): string | undefined {
  if (!isValidEventName(event)) return 'track: an event name is 1 to 128 letters, digits, spaces or _ . : / -';
  if (properties !== undefined && !isPlainObject(properties)) return 'track: properties must be an object';
  return undefined;
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
