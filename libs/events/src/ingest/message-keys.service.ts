import { Injectable } from '@nestjs/common';
import { deleteInBatches, SqlExecutor } from '@foresight/platform';
import { MAX_FUTURE_MS } from '../event.schema';
import { EXPIRE_MESSAGE_KEYS } from './message-keys.sql';

/**
 * Retention of the messageId dedupe keys (event_message_keys, one per claimed messageId). A key
 * refuses its messageId for as long as the event it claimed may still be stored: the organization's
 * retention, which counts from the event's time, and an event may be dated up to MAX_FUTURE_MS after
 * it arrived (when its key was claimed). So the keys go that long after the events retention deletes:
 * a key forgotten earlier would let a resent event in beside the stored one (and its COPY fail on the
 * events primary key, which holds the messageId). After that the messageId is unknown again and an
 * event sent with it is stored, once.
 */
@Injectable()
export class MessageKeysService {
  constructor(private readonly sql: SqlExecutor) {}

  /** The organization's keys claimed before `eventsBefore` less MAX_FUTURE_MS; returns how many went. */
  expire(organizationId: string, eventsBefore: Date): Promise<number> {
    const claimedBefore = new Date(eventsBefore.getTime() - MAX_FUTURE_MS).toISOString();
    return deleteInBatches(this.sql, EXPIRE_MESSAGE_KEYS, [organizationId, claimedBefore]);
  }
}
