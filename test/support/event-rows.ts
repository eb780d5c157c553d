import type { EventRow } from '../../libs/events/src/ingest/event-row';
import type { StoredUserId } from '../../libs/events/src/users/stored-user-id';

/** A row as the event writer takes it: a click now, by `ids` (user-1 unless told), nothing else. */
export function eventRow(organizationId: string, messageId: string, ids: { userId?: string; anonymousId?: string } = { userId: 'user-1' }): EventRow {
  const now = new Date().toISOString();
  return {
    organizationId,
    messageId,
    event: 'click',
    userId: (ids.userId ?? null) as StoredUserId | null,
    anonymousId: (ids.anonymousId ?? null) as StoredUserId | null,
    sessionId: null,
    occurredAt: now,
    receivedAt: now,
    screen: null,
    scrollDepth: null,
    dwellMs: null,
    hesitationMs: null,
    numericProperties: null,
    stringProperties: null,
    properties: null,
    context: null,
    encryptionKeyId: null,
  };
}
