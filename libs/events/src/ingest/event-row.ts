import { randomUUID } from 'node:crypto';
import type { EventPayloadCipherService } from '../encryption/event-payload-cipher.service';
import { type EventInput, eventInstant } from '../event.schema';
import { looksLikePersonalData } from '../pii';
import type { StoredUserId } from '../users/stored-user-id';

/** One row of the events table, as the writer inserts it. */
export interface EventRow {
  organizationId: string;
  messageId: string;
  event: string;
  userId: StoredUserId | null;
  anonymousId: StoredUserId | null;
  sessionId: string | null;
  occurredAt: string;
  receivedAt: string;
  screen: string | null;
  scrollDepth: number | null;
  dwellMs: number | null;
  hesitationMs: number | null;
  /** JSON of the top-level numeric custom properties (numericProperties), in clear; null when there are none. */
  numericProperties: string | null;
  /** JSON of the short top-level string custom properties (stringProperties), in clear; null when there are none. */
  stringProperties: string | null;
  /** Ciphertext (EventPayloadCipherService), never the caller's JSON. */
  properties: string | null;
  context: string | null;
  encryptionKeyId: string | null;
}

/** What every row of a request goes through before it is stored. */
export interface RowProtection {
  /** The organization's stored form of a user or anonymous id (UserIdsService.pseudonymizer). */
  pseudonymize: (rawId: string) => StoredUserId;
  cipher: EventPayloadCipherService;
}

/** Numeric properties kept in clear per event, in the order sent: enough for any real event, bounded for storage. */
export const MAX_NUMERIC_PROPERTIES = 32;
/** Properties already lifted into their own typed columns. */
const SIGNAL_PROPERTIES = new Set(['depth', 'dwellMs', 'hesitationMs']);
/** A UTF-16 half without its pair: jsonb refuses its escape, so such a key stays sealed only. */
const UNPAIRED_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * The finite numbers among an event's top-level custom properties (cart items, amounts): stored in
 * clear beside the sealed properties, in the event's own row, so features can read them without
 * decrypting every event, and erasure, export and retention remove them with the event. Keys were
 * already checked for personal data (pii_detected); nested values stay sealed only.
 */
export function numericProperties(properties: Record<string, unknown>): Record<string, number> | null {
  const kept: Array<[string, number]> = [];
  for (const [key, value] of Object.entries(properties)) {
    if (kept.length === MAX_NUMERIC_PROPERTIES) break;
    if (typeof value === 'number' && Number.isFinite(value) && !SIGNAL_PROPERTIES.has(key) && !UNPAIRED_SURROGATE.test(key)) kept.push([key, value]);
  }
  // fromEntries defines own properties: a "__proto__" key stays data.
  return kept.length === 0 ? null : Object.fromEntries(kept);
}

/** String properties kept in clear per event, and their longest value: a plan, a feature or a reason, not free text. */
export const MAX_STRING_PROPERTIES = 16;
export const MAX_STRING_PROPERTY_LENGTH = 40;
/** Properties already in their own column (the screen or url). */
const SCREEN_PROPERTIES = new Set(['screen', 'url']);

/**
 * The short strings among an event's top-level custom properties (`plan: "pro"`, `reason: "price"`):
 * stored in clear in the event's own row, as numericProperties, so features can count their values.
 * Free text (longer values, line breaks) and values that look like an e-mail address or a phone number
 * stay sealed only.
 */
export function stringProperties(properties: Record<string, unknown>): Record<string, string> | null {
  const kept: Array<[string, string]> = [];
  for (const [key, value] of Object.entries(properties)) {
    if (kept.length === MAX_STRING_PROPERTIES) break;
    if (typeof value !== 'string' || value.length === 0 || value.length > MAX_STRING_PROPERTY_LENGTH || SCREEN_PROPERTIES.has(key)) continue;
    if (/\p{Cc}/u.test(value) || UNPAIRED_SURROGATE.test(key) || UNPAIRED_SURROGATE.test(value) || looksLikePersonalData(value)) continue;
    kept.push([key, value]);
  }
  return kept.length === 0 ? null : Object.fromEntries(kept);
}

/**
 * Lifts the first-class behavioral signals out of properties into typed columns, pseudonymizes ids
 * and seals the free-form parts. `receivedAt` is an ISO string, formatted once per request.
 */
export function toEventRow(organizationId: string, input: EventInput, receivedAt: string, protection: RowProtection): EventRow {
  const properties = input.properties ?? {};
  const screen = properties.screen ?? properties.url;
  const messageId = input.messageId ?? randomUUID();
  const { pseudonymize, cipher } = protection;
  const sealed = input.properties !== undefined || input.context !== undefined;
  return {
    organizationId,
    messageId,
    event: input.event,
    userId: input.userId === undefined ? null : pseudonymize(input.userId),
    anonymousId: input.anonymousId === undefined ? null : pseudonymize(input.anonymousId),
    sessionId: input.sessionId ?? null,
    occurredAt: input.timestamp ? new Date(eventInstant(input.timestamp)).toISOString() : receivedAt,
    receivedAt,
    screen: typeof screen === 'string' ? screen : null,
    scrollDepth: typeof properties.depth === 'number' ? properties.depth : null,
    dwellMs: typeof properties.dwellMs === 'number' ? Math.round(properties.dwellMs) : null,
    hesitationMs: typeof properties.hesitationMs === 'number' ? Math.round(properties.hesitationMs) : null,
    numericProperties: jsonOrNull(numericProperties(properties)),
    stringProperties: jsonOrNull(stringProperties(properties)),
    properties: cipher.seal(organizationId, messageId, 'properties', input.properties),
    context: cipher.seal(organizationId, messageId, 'context', input.context),
    encryptionKeyId: sealed ? cipher.keyId : null,
  };
}

const jsonOrNull = (value: object | null) => (value === null ? null : JSON.stringify(value));
