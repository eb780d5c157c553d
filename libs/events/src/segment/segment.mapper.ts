import { invalidRequest } from '@foresight/platform';
import { MAX_EVENTS_PER_BATCH } from '../event.schema';

export type SegmentCall = 'track' | 'identify' | 'page' | 'screen' | 'alias' | 'group';
const SEGMENT_CALLS: readonly string[] = ['track', 'identify', 'page', 'screen', 'alias', 'group'];

type Json = Record<string, unknown>;

/**
 * Maps Segment messages (analytics-node, RudderStack and the Segment mobile SDKs send them) onto
 * our events; each result then goes through the same checks as a POST /v1/events event (validateEachEvent).
 * `identify` keeps only the anonymousId → userId link: traits are personal data we do not need; the
 * same goes for `group` (its groupId only) and `alias` (previousId → userId, stored as an identity link).
 * `receivedAt` is this request's arrival (ms), for the clock-skew correction.
 */
export function segmentToEvents(call: SegmentCall | 'batch', body: unknown, receivedAt = Date.now()): unknown[] {
  if (!isObject(body)) throw invalidRequest('(body): a JSON object is required');
  if (call !== 'batch') return [segmentMessageToEvent(call, body, receivedAt, body.sentAt)];
  const batch = body.batch;
  if (!Array.isArray(batch) || batch.length === 0) throw invalidRequest('batch: a non-empty array of messages is required');
  if (batch.length > MAX_EVENTS_PER_BATCH) throw invalidRequest(`batch: at most ${MAX_EVENTS_PER_BATCH} messages`);
  return batch.map((message: unknown) => {
    const type = isObject(message) ? message.type : undefined;
    // Not a message we map: null is never a valid event, so validation skips it and counts it as rejected.
    if (typeof type !== 'string' || !SEGMENT_CALLS.includes(type)) return null;
    // analytics-node and the mobile SDKs put sentAt on the batch, RudderStack on each message too.
    const json = message as Json;
    return segmentMessageToEvent(type as SegmentCall, json, receivedAt, json.sentAt ?? body.sentAt);
  });
}

function segmentMessageToEvent(call: SegmentCall, message: Json, receivedAt: number, sentAt: unknown): Json {
  // A `properties: null` is {}; anything else that is not an object stays invalid.
  const properties = message.properties === null ? {} : message.properties;
  const propertiesObject = isObject(properties) ? properties : undefined;
  const common: Json = {
    userId: message.userId ?? undefined,
    anonymousId: message.anonymousId ?? undefined,
    timestamp: timestampOf(message, receivedAt, sentAt),
    messageId: message.messageId ?? undefined,
    sessionId: sessionIdOf(message),
    context: isObject(message.context) ? message.context : undefined,
  };
  switch (call) {
    case 'track':
      return { ...common, event: message.event, properties };
    case 'page': {
      const url = propertiesObject?.url ?? (isObject(message.context) && isObject(message.context.page) ? message.context.page.url : undefined);
      return { ...common, event: 'page_view', properties: { ...propertiesObject, ...(url ? { url } : { screen: message.name }) } };
    }
    case 'screen':
      // Segment sends `name`; RudderStack v1 sends `event` and `properties.name` and no `name`.
      return { ...common, event: 'screen_view', properties: { ...propertiesObject, screen: message.name ?? propertiesObject?.name ?? message.event } };
    case 'identify':
      return { ...common, event: 'identify' };
    case 'group':
      return { ...common, event: 'group', properties: { groupId: message.groupId } };
    case 'alias':
      // The writer links an event's anonymousId to its userId: previousId is the id being merged.
      return { ...common, event: 'alias', anonymousId: message.previousId ?? common.anonymousId };
  }
}

/**
 * `timestamp`, else `originalTimestamp` (RudderStack sends only that). With `sentAt`, Segment's
 * clock-skew correction: the device clock's error is receivedAt − sentAt, added to the timestamp.
 * A timestamp that does not parse is passed on unchanged, for validation to name it.
 */
function timestampOf(message: Json, receivedAt: number, sentAt: unknown): unknown {
  const timestamp = message.timestamp ?? message.originalTimestamp ?? undefined;
  if (typeof timestamp !== 'string' || typeof sentAt !== 'string') return timestamp;
  const at = instantOf(timestamp);
  const sent = instantOf(sentAt);
  if (Number.isNaN(at) || Number.isNaN(sent)) return timestamp;
  return new Date(at + (receivedAt - sent)).toISOString();
}

/** Like eventInstant: no zone means UTC (Date.parse alone would read local time). */
function instantOf(text: string): number {
  return Date.parse(/(?:Z|[+-]\d{2}(?::?\d{2})?)$/i.test(text) ? text : `${text}Z`);
}

/**
 * Segment carries no session field; mobile SDKs and ours put one in context or properties. Mobile
 * SDKs send a number (a start time): it becomes a string.
 */
function sessionIdOf(message: Json): unknown {
  const context = isObject(message.context) ? message.context : {};
  const properties = isObject(message.properties) ? message.properties : {};
  const sessionId = context.sessionId ?? properties.sessionId ?? undefined;
  return typeof sessionId === 'number' && Number.isFinite(sessionId) ? String(sessionId) : sessionId;
}

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
