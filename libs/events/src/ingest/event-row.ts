import { randomUUID } from 'node:crypto';
import type { EventPayloadCipherService } from '../encryption/event-payload-cipher.service';
import { type EventInput, eventInstant } from '../event.schema';
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
    properties: cipher.seal(organizationId, messageId, 'properties', input.properties),
    context: cipher.seal(organizationId, messageId, 'context', input.context),
    encryptionKeyId: sealed ? cipher.keyId : null,
  };
}
