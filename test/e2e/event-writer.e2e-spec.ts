import { DataSource, type Logger } from 'typeorm';
import type { AppConfig } from '@foresight/platform';
import type { EventRow } from '../../libs/events/src/ingest/event-row';
import { EventWriterService } from '../../libs/events/src/ingest/event-writer.service';
import type { StoredUserId } from '../../libs/events/src/users/stored-user-id';
import { TestSuite } from '../support/suite';

/**
 * The group-commit writer on real Postgres: how it claims messageIds. A group claims them with one
 * COPY unless one of its organizations met a duplicate in its last claim; then, and after a COPY that
 * met one, it claims row by row (CLAIM_MESSAGE_KEYS_SQL). One organization's retries must not move
 * another's groups off the bulk path.
 */
describe('event writer: messageId claims', () => {
  let suite: TestSuite;
  let dataSource: DataSource;
  let writer: EventWriterService;
  const statements: string[] = [];
  const logger: Logger = {
    logQuery: (query) => void statements.push(query.trim()),
    logQueryError: () => undefined,
    logQuerySlow: () => undefined,
    logSchemaBuild: () => undefined,
    logMigration: () => undefined,
    log: () => undefined,
  };

  beforeAll(async () => {
    suite = await TestSuite.create('event_writer');
    dataSource = new DataSource({ type: 'postgres', url: suite.env.DATABASE_URL, logging: ['query'], logger });
    await dataSource.initialize();
    writer = new EventWriterService(dataSource, { embedded: false } as AppConfig);
  });

  afterAll(async () => {
    await dataSource?.destroy();
    await suite?.destroy();
  });

  const row = (organizationId: string, messageId: string): EventRow => ({
    organizationId,
    messageId,
    event: 'click',
    userId: 'user-1' as StoredUserId,
    anonymousId: null,
    sessionId: null,
    occurredAt: new Date().toISOString(),
    receivedAt: new Date().toISOString(),
    screen: null,
    scrollDepth: null,
    dwellMs: null,
    hesitationMs: null,
    numericProperties: null,
    properties: null,
    context: null,
    encryptionKeyId: null,
  });

  /** Writes one request's rows; returns its counts and how the group claimed them. */
  async function write(organizationId: string, messageIds: string[]) {
    statements.length = 0;
    const { accepted, duplicates } = await writer.write(
      messageIds.map((id) => row(organizationId, id)),
      { changedUsers: false },
    );
    const claimedRowWise = statements.some((sql) => sql.startsWith('INSERT INTO event_message_keys'));
    const rolledBack = statements.some((sql) => sql === 'ROLLBACK');
    return { accepted, duplicates, claim: claimedRowWise ? (rolledBack ? 'copy, then row-wise' : 'row-wise') : 'copy' };
  }

  it('claims with COPY until an organization meets a duplicate, and keeps the other organizations on COPY', async () => {
    expect(await write('org_retryingsender01', ['a-1', 'a-2'])).toEqual({ accepted: 2, duplicates: 0, claim: 'copy' });
    // A retry: the COPY meets the duplicate, the group runs again row by row.
    expect(await write('org_retryingsender01', ['a-2', 'a-3'])).toEqual({ accepted: 1, duplicates: 1, claim: 'copy, then row-wise' });
    // While its claims meet duplicates, that organization's groups go row by row at once…
    expect(await write('org_retryingsender01', ['a-3'])).toEqual({ accepted: 0, duplicates: 1, claim: 'row-wise' });
    // …and another organization's stay on COPY.
    expect(await write('org_quietsender00001', ['a-3', 'b-1'])).toEqual({ accepted: 2, duplicates: 0, claim: 'copy' });
    // A row-wise claim that meets no duplicate brings the organization back to COPY.
    expect(await write('org_retryingsender01', ['a-4'])).toEqual({ accepted: 1, duplicates: 0, claim: 'row-wise' });
    expect(await write('org_retryingsender01', ['a-5'])).toEqual({ accepted: 1, duplicates: 0, claim: 'copy' });
    const [{ n }] = await suite.sql<{ n: number }>(`SELECT count(*)::int AS n FROM events`);
    expect(n).toBe(7);
  });
});
