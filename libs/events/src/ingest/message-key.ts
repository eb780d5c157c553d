import { hash } from 'node:crypto';

/**
 * The messageId dedupe key of an event, in hex: the first 16 bytes of SHA-256 over
 * "<organization id> <messageId>", as the database's event_message_key() computes it
 * (EventMessageKeys1764740000000). Organization ids hold no space, so the pair is unambiguous.
 */
export function messageKey(organizationId: string, messageId: string): string {
  return hash('sha256', `${organizationId} ${messageId}`, 'hex').slice(0, 32);
}
