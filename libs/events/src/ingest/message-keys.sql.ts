import { batchedDelete } from '@foresight/platform';

/** One batch of the organization's dedupe keys claimed before $2. */
export const EXPIRE_MESSAGE_KEYS = batchedDelete<[organizationId: string, claimedBefore: string]>(
  'events.expire-message-keys',
  'event_message_keys',
  'organization_id = $1 AND claimed_at < $2',
);
