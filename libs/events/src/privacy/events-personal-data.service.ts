import { Injectable } from '@nestjs/common';
import { type ErasedRows, type PersonalDataStore, PersonalDataStoreProvider } from '@foresight/platform';
import { EventPayloadCipherService } from '../encryption/event-payload-cipher.service';
import { MessageKeysService } from '../ingest/message-keys.service';
import { UserEventsService } from '../users/user-events.service';

/**
 * Events, identity links, the user's activity row and the window kept of their events (one store:
 * erasing events needs the links, so all go in one statement; the window goes with the activity row).
 * The links are exported by IdentitiesPersonalDataService, and erased and counted here.
 * Sessions are derived from events and vanish with them.
 */
@Injectable()
@PersonalDataStoreProvider()
export class EventsPersonalDataService implements PersonalDataStore {
  readonly name = 'events';
  readonly userIdColumns = [
    { table: 'events', column: 'user_id' },
    { table: 'events', column: 'anonymous_id' },
    { table: 'identities', column: 'user_id' },
    { table: 'identities', column: 'anonymous_id' },
    { table: 'user_activity', column: 'user_id' },
    { table: 'user_windows', column: 'user_id' },
  ];

  constructor(
    private readonly userEvents: UserEventsService,
    private readonly cipher: EventPayloadCipherService,
    private readonly messageKeys: MessageKeysService,
  ) {}

  /** Properties and context decrypted: the export, and the admin-only live feed's properties, are where they leave the database readable. */
  async export(organizationId: string, userId: string): Promise<unknown[]> {
    const rows = await this.userEvents.erasableEvents(organizationId, userId);
    return rows.map((row) => ({
      messageId: row.message_id,
      event: row.event,
      userId: row.user_id,
      anonymousId: row.anonymous_id,
      sessionId: row.session_id,
      timestamp: row.occurred_at.toISOString(),
      receivedAt: row.received_at.toISOString(),
      properties: this.cipher.open(organizationId, row.message_id, 'properties', row.properties, row.encryption_key_id),
      context: this.cipher.open(organizationId, row.message_id, 'context', row.context, row.encryption_key_id),
    }));
  }

  /**
   * Counted as the export lists them: events under `events`, links under `identities` (their export
   * section, IdentitiesPersonalDataService). The activity row and kept window, an index of the
   * events and no datum of their own, are erased uncounted, like the sessions derived from events.
   */
  erase(organizationId: string, userId: string): Promise<ErasedRows> {
    return this.userEvents.erase(organizationId, userId);
  }

  /**
   * Events older than `before`, then the activity rows of users left with no event, then the
   * messageId dedupe keys no stored event needs any more (not counted: they are no one's data).
   */
  async expire(organizationId: string, before: Date): Promise<number> {
    const expired = await this.userEvents.expire(organizationId, before);
    await this.messageKeys.expire(organizationId, before);
    return expired;
  }

  remaining(organizationId: string, userId: string): Promise<number> {
    return this.userEvents.remaining(organizationId, userId);
  }
}
