import { Injectable } from '@nestjs/common';
import { UserIds } from '@foresight/auth';
import { AppError, invalidRequest, UserActivityFeed, type ErrorDetail } from '@foresight/platform';
import { EventPayloadCipher } from '../encryption/event-payload-cipher';
import { eventSchema, MAX_EVENT_BYTES, MAX_EVENTS_PER_BATCH, type EventInput } from '../event.schema';
import { looksLikePersonalData, personalDataKeys } from '../pii';
import { SuppressionList } from '../suppression/suppression-list';
import { toEventRow } from './event-row';
import { EventWriter } from './event-writer';

export interface IngestResult {
  status: 'accepted';
  accepted: number;
  duplicates: number;
  /** Events of suppressed users: acknowledged, not stored. */
  suppressed: number;
}

/**
 * Validates a request's events all-or-nothing, pseudonymizes ids, seals free-form properties, drops
 * suppressed users' events, then hands the rest to the group-commit writer.
 */
@Injectable()
export class IngestService {
  constructor(
    private readonly writer: EventWriter,
    private readonly userIds: UserIds,
    private readonly cipher: EventPayloadCipher,
    private readonly suppression: SuppressionList,
    private readonly activity: UserActivityFeed,
  ) {}

  /** `body` is one event or an array of them, exactly as received. */
  async ingest(organizationId: string, body: unknown): Promise<IngestResult> {
    return this.ingestEvents(organizationId, validateEvents(body));
  }

  /** For callers that already validated (the Segment mapping). */
  async ingestEvents(organizationId: string, events: EventInput[]): Promise<IngestResult> {
    const receivedAt = new Date().toISOString();
    const [pseudonymize, isSuppressed] = await Promise.all([this.userIds.pseudonymizer(organizationId), this.suppression.matcher(organizationId)]);
    const rows = events.map((event) => toEventRow(organizationId, event, receivedAt, { pseudonymize, cipher: this.cipher }));
    const kept = isSuppressed ? rows.filter((row) => !isSuppressed(row.userId) && !isSuppressed(row.anonymousId)) : rows;
    const { accepted, duplicates } = kept.length > 0 ? await this.writer.write(kept) : { accepted: 0, duplicates: 0 };
    if (accepted > 0) await this.activity.touched(organizationId, kept.flatMap((row) => (row.userId === null ? [] : [row.userId])));
    return { status: 'accepted', accepted, duplicates, suppressed: rows.length - kept.length };
  }
}

/**
 * Every problem of every event is reported (`details[].path` is `<index>.<field>` in a batch);
 * one bad event rejects the whole request, so nothing is half-written.
 */
export function validateEvents(body: unknown): EventInput[] {
  const batch = Array.isArray(body);
  const items: unknown[] = batch ? (body as unknown[]) : [body];
  if (batch && items.length === 0) throw invalidRequest('The batch is empty; send at least one event.');
  if (items.length > MAX_EVENTS_PER_BATCH) {
    throw invalidRequest(`A batch holds at most ${MAX_EVENTS_PER_BATCH} events; this one has ${items.length}.`);
  }
  const invalid: ErrorDetail[] = [];
  const personal: ErrorDetail[] = [];
  const events: EventInput[] = [];
  items.forEach((item, index) => {
    const at = (field: string) => (batch ? (field ? `${index}.${field}` : String(index)) : field || '(body)');
    if (Buffer.byteLength(JSON.stringify(item) ?? '') > MAX_EVENT_BYTES) {
      invalid.push({ path: at(''), message: `the event is larger than ${MAX_EVENT_BYTES / 1024} KiB` });
      return;
    }
    // A name carrying personal data is reported as such, even when it also breaks the character rules.
    const name = (item as { event?: unknown } | null)?.event;
    const personalName = typeof name === 'string' && looksLikePersonalData(name);
    if (personalName) personal.push({ path: at('event'), message: 'the event name looks like personal data' });
    const parsed = eventSchema.safeParse(item);
    if (!parsed.success) {
      for (const issue of parsed.error.issues) {
        if (!(personalName && issue.path[0] === 'event')) invalid.push({ path: at(issue.path.join('.')), message: issue.message });
      }
      return;
    }
    for (const key of personalDataKeys(parsed.data.properties)) {
      personal.push({ path: at(`properties.${key}`), message: 'the property key looks like personal data' });
    }
    events.push(parsed.data);
  });
  if (invalid.length > 0) {
    throw invalidRequest(summary(invalid, 'invalid'), [...invalid, ...personal]);
  }
  if (personal.length > 0) {
    throw new AppError('pii_detected', summary(personal, 'refused: names must not carry personal data'), personal);
  }
  return events;
}

function summary(details: ErrorDetail[], what: string): string {
  const shown = details.slice(0, 3).map((d) => `${d.path}: ${d.message}`).join('; ');
  return `${details.length} field(s) ${what}: ${shown}${details.length > 3 ? '; …' : ''}`;
}
