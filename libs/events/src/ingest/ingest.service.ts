import { Injectable } from '@nestjs/common';
import { AppError, type ErrorDetail, invalidRequest, UserActivityFeedService } from '@foresight/platform';
import { EventPayloadCipherService } from '../encryption/event-payload-cipher.service';
import { type EventInput, eventSchema, MAX_EVENT_BYTES, MAX_EVENT_NAME_LENGTH, MAX_EVENTS_PER_BATCH } from '../event.schema';
import { shapeProblems } from '../event-limits';
import { IngestionStatsService } from '../ingestion-stats/ingestion-stats.service';
import { DIRECT_CALL, eventCount, libraryName, sendingLibrary } from '../ingestion-stats/library-name';
import { looksLikePersonalData, personalDataKeys } from '../pii';
import { type SegmentCall, segmentToEvents } from '../segment/segment.mapper';
import { SuppressionListService } from '../suppression/suppression-list.service';
import { UserEventsService } from '../users/user-events.service';
import { UserIdsService } from '../users/user-ids.service';
import { toEventRow } from './event-row';
import { mapInSlices } from './in-slices';

export interface IngestResult {
  status: 'accepted';
  accepted: number;
  duplicates: number;
  /** Events of suppressed users: acknowledged, not stored. */
  suppressed: number;
}

export type SegmentIngestResult = IngestResult & { rejected: number };

/**
 * Validates a request's events all-or-nothing, pseudonymizes ids, seals free-form properties, drops
 * suppressed users' events, then hands the rest to the group-commit writer.
 */
@Injectable()
export class IngestService {
  constructor(
    private readonly userEvents: UserEventsService,
    private readonly userIds: UserIdsService,
    private readonly cipher: EventPayloadCipherService,
    private readonly suppression: SuppressionListService,
    private readonly activity: UserActivityFeedService,
    private readonly stats: IngestionStatsService,
  ) {}

  /** `body` is one event or an array of them, exactly as received; counted per library in the ingestion stats. */
  async ingest(organizationId: string, body: unknown): Promise<IngestResult> {
    const library = libraryName(sendingLibrary(body), DIRECT_CALL);
    const events = await this.stats.refusedUnless(organizationId, library, eventCount(body), () => validateEvents(body));
    return this.ingestEvents(organizationId, events, library);
  }

  /**
   * A Segment-compatible body: not all-or-nothing, valid messages are stored and invalid ones skipped
   * and counted. A body that is not a message or batch at all is still refused whole.
   */
  async ingestSegment(organizationId: string, call: SegmentCall | 'batch', body: unknown): Promise<SegmentIngestResult> {
    const library = libraryName(sendingLibrary(body), DIRECT_CALL);
    const { events, rejected } = await this.stats.refusedUnless(organizationId, library, eventCount(body), () => validateEachEvent(segmentToEvents(call, body)));
    if (rejected > 0) await this.stats.record(organizationId, library, { rejected });
    return { ...(await this.ingestEvents(organizationId, events, library)), rejected };
  }

  /**
   * For callers that already validated (the Segment mapping, `demo seed`). Every stored event passes
   * here, so this is where the ingestion stats count them, under `library`.
   */
  async ingestEvents(organizationId: string, events: EventInput[], library: string): Promise<IngestResult> {
    const result = await this.store(organizationId, events);
    await this.stats.record(organizationId, library, result);
    return result;
  }

  private async store(organizationId: string, events: EventInput[]): Promise<IngestResult> {
    const receivedAt = new Date().toISOString();
    const [pseudonymize, isSuppressed] = await Promise.all([this.userIds.pseudonymizer(organizationId), this.suppression.matcher(organizationId)]);
    const rows = await mapInSlices(events, (event) => toEventRow(organizationId, event, receivedAt, { pseudonymize, cipher: this.cipher }));
    const kept = isSuppressed ? rows.filter((row) => !isSuppressed(row.userId) && !isSuppressed(row.anonymousId)) : rows;
    if (kept.length === 0) return { status: 'accepted', accepted: 0, duplicates: 0, suppressed: rows.length };
    const followed = await this.activity.followed(organizationId);
    const { accepted, duplicates, changedUsers } = await this.userEvents.write(kept, { changedUsers: followed });
    if (changedUsers.length > 0) await this.activity.touched(organizationId, changedUsers);
    return { status: 'accepted', accepted, duplicates, suppressed: rows.length - kept.length };
  }
}

/**
 * Every problem of every event is reported (`details[].path` is `<index>.<field>` in a batch);
 * one bad event rejects the whole request, so nothing is half-written.
 */
export async function validateEvents(body: unknown): Promise<EventInput[]> {
  const batch = Array.isArray(body);
  const items = batchItems(body);
  if (batch && items.length === 0) throw invalidRequest('The batch is empty; send at least one event.');
  const checked = await mapInSlices(items, (item, index) =>
    checkEvent(item, (field) => (batch ? (field ? `${index}.${field}` : String(index)) : field || '(body)')),
  );
  const invalid = checked.flatMap((c) => c.invalid);
  const personal = checked.flatMap((c) => c.personal);
  if (invalid.length > 0) {
    throw invalidRequest(summary(invalid, 'invalid'), [...invalid, ...personal]);
  }
  if (personal.length > 0) {
    throw new AppError('pii_detected', summary(personal, 'refused: names must not carry personal data'), personal);
  }
  return checked.flatMap((c) => (c.event ? [c.event] : []));
}

/**
 * The Segment-compatible routes: SDKs drop or endlessly retry a batch answered 400,
 * so each message stands alone; the invalid ones are skipped and counted.
 */
export async function validateEachEvent(items: unknown[]): Promise<{ events: EventInput[]; rejected: number }> {
  const checked = await mapInSlices(items, (item) => checkEvent(item, (field) => field));
  const events = checked.flatMap((c) => (c.event ? [c.event] : []));
  return { events, rejected: items.length - events.length };
}

function batchItems(body: unknown): unknown[] {
  const items: unknown[] = Array.isArray(body) ? (body as unknown[]) : [body];
  if (items.length > MAX_EVENTS_PER_BATCH) {
    throw invalidRequest(`A batch holds at most ${MAX_EVENTS_PER_BATCH} events; this one has ${items.length}.`);
  }
  return items;
}

interface CheckedEvent {
  event?: EventInput;
  invalid: ErrorDetail[];
  personal: ErrorDetail[];
}

/**
 * Cheap, bounded checks first: shape (iterative, so nothing recursive meets a hostile nesting),
 * then size, and only then the patterns and the schema, over values whose size is known.
 */
function checkEvent(item: unknown, at: (field: string) => string): CheckedEvent {
  const shape = shapeProblems(item);
  if (shape.length > 0) return { invalid: shape.map((problem) => ({ path: at(problem.path), message: problem.message })), personal: [] };
  if (Buffer.byteLength(JSON.stringify(item) ?? '') > MAX_EVENT_BYTES) {
    return { invalid: [{ path: at(''), message: `the event is larger than ${MAX_EVENT_BYTES / 1024} KiB` }], personal: [] };
  }
  const invalid: ErrorDetail[] = [];
  const personal: ErrorDetail[] = [];
  // A name carrying personal data is reported as such, even when it also breaks the character rules.
  const name = (item as { event?: unknown } | null)?.event;
  const personalName = typeof name === 'string' && name.length <= MAX_EVENT_NAME_LENGTH && looksLikePersonalData(name);
  if (personalName) personal.push({ path: at('event'), message: 'the event name looks like personal data' });
  const parsed = eventSchema.safeParse(item);
  if (!parsed.success) {
    for (const issue of parsed.error.issues) {
      if (!(personalName && issue.path[0] === 'event')) invalid.push({ path: at(issue.path.join('.')), message: issue.message });
    }
    return { invalid, personal };
  }
  for (const key of personalDataKeys(parsed.data.properties)) {
    personal.push({ path: at(`properties.${key}`), message: 'the property key looks like personal data' });
  }
  return { event: personal.length === 0 ? parsed.data : undefined, invalid, personal };
}

function summary(details: ErrorDetail[], what: string): string {
  const shown = details.slice(0, 3).map((d) => `${d.path}: ${d.message}`).join('; ');
  return `${details.length} field(s) ${what}: ${shown}${details.length > 3 ? '; …' : ''}`;
}
