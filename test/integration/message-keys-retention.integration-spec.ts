import { DAY_MS } from '@foresight/platform';
import { EventWriterService } from '../../libs/events/src/ingest/event-writer.service';
import { messageKey } from '../../libs/events/src/ingest/message-key';
import { MessageKeysService } from '../../libs/events/src/ingest/message-keys.service';
import { eventRow } from '../support/event-rows';
import { openServiceDatabase, type ServiceDatabase } from '../support/service-database';

const ORG = 'org_keysretention001';
const OTHER = 'org_keysretention002';
const HOUR_MS = 3_600_000;

/**
 * The messageId dedupe keys are forgotten once past the dedupe window (the organization's retention
 * plus the day an event may be dated ahead), by the retention job's events store
 * (EventsPersonalDataService.expire calls MessageKeysService.expire with retention's cutoff).
 */
describe('retention of the messageId dedupe keys', () => {
  let db: ServiceDatabase;
  let writer: EventWriterService;
  let keys: MessageKeysService;

  beforeAll(async () => {
    db = await openServiceDatabase('message_keys');
    for (const id of [ORG, OTHER]) await db.dataSource.query(`INSERT INTO organizations (id, name, region) VALUES ($1, $1, 'eu')`, [id]);
    writer = new EventWriterService(db.dataSource, db.sql, db.config);
    keys = new MessageKeysService(db.sql);
  });

  afterAll(async () => {
    await db?.close();
  });

  const write = (...rows: Array<[organizationId: string, messageId: string]>) =>
    writer.write(
      rows.map(([organizationId, messageId]) => eventRow(organizationId, messageId)),
      { changedUsers: false },
    );
  /** As if the key had been claimed `ms` ago. */
  const claimedAgo = (organizationId: string, messageId: string, ms: number) =>
    db.dataSource.query(`UPDATE event_message_keys SET claimed_at = now() - make_interval(secs => $3) WHERE organization_id = $1 AND key = decode($2, 'hex')`, [
      organizationId,
      messageKey(organizationId, messageId),
      ms / 1000,
    ]);
  const storedKeys = async () =>
    (await db.dataSource.query<Array<{ organization_id: string; key: string }>>(`SELECT organization_id, encode(key, 'hex') AS key FROM event_message_keys`))
      .map((row) => `${row.organization_id}:${row.key}`)
      .sort();
  const keyOf = (organizationId: string, messageId: string) => `${organizationId}:${messageKey(organizationId, messageId)}`;

  it('forgets the keys claimed before the window, keeps the others, and still refuses a duplicate inside it', async () => {
    expect(await write([ORG, 'past-window'], [ORG, 'inside-window'], [ORG, 'recent'], [OTHER, 'past-window'])).toMatchObject({ accepted: 4, duplicates: 0 });
    // A 30-day retention: events dated before its cutoff go; a key goes a day after that.
    await claimedAgo(ORG, 'past-window', 31 * DAY_MS + HOUR_MS);
    await claimedAgo(ORG, 'inside-window', 31 * DAY_MS - HOUR_MS);
    await claimedAgo(OTHER, 'past-window', 40 * DAY_MS); // another organization's: its own retention decides
    const cutoff = new Date(Date.now() - 30 * DAY_MS);

    expect(await keys.expire(ORG, cutoff)).toBe(1);
    expect(await storedKeys()).toEqual([keyOf(ORG, 'inside-window'), keyOf(ORG, 'recent'), keyOf(OTHER, 'past-window')].sort());

    // Inside the window a messageId sent again is refused, whether the bulk claim or the row-wise one meets it.
    expect(await write([ORG, 'recent'], [ORG, 'inside-window'])).toMatchObject({ accepted: 0, duplicates: 2 });
    expect(await write([OTHER, 'past-window'], [ORG, 'new'])).toMatchObject({ accepted: 1, duplicates: 1 });
    // Past it (its event gone with retention first), the messageId is unknown again: stored once more, once.
    await db.dataSource.query(`DELETE FROM events WHERE organization_id = $1 AND message_id = 'past-window'`, [ORG]);
    expect(await write([ORG, 'past-window'], [ORG, 'past-window'])).toMatchObject({ accepted: 1, duplicates: 1 });
    expect(await keys.expire(ORG, cutoff)).toBe(0);
  });
});
