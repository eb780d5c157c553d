import { invalidRequest } from '@foresight/platform';
import { MAX_EVENTS_PER_BATCH } from '../event.schema';

export type SegmentCall = 'track' | 'identify' | 'page' | 'screen';
const SEGMENT_CALLS: readonly string[] = ['track', 'identify', 'page', 'screen'];

type Json = Record<string, unknown>;

/**
 * Maps Segment messages (analytics-node, RudderStack and the Segment mobile SDKs send them) onto
 * our events; each result then goes through the same checks as a POST /v1/events event (validateEachEvent).
 * `identify` keeps only the anonymousId → userId link: traits are personal data we do not need.
 */
export function segmentToEvents(call: SegmentCall | 'batch', body: unknown): unknown[] {
  if (!isObject(body)) throw invalidRequest('(body): a JSON object is required');
  if (call !== 'batch') return [segmentMessageToEvent(call, body)];
  const batch = body.batch;
  if (!Array.isArray(batch) || batch.length === 0) throw invalidRequest('batch: a non-empty array of messages is required');
  if (batch.length > MAX_EVENTS_PER_BATCH) throw invalidRequest(`batch: at most ${MAX_EVENTS_PER_BATCH} messages`);
  return batch.map((message: unknown) => {
    const type = isObject(message) ? message.type : undefined;
    // Not a message we map: null is never a valid event, so validation skips it and counts it as rejected.
    if (typeof type !== 'string' || !SEGMENT_CALLS.includes(type)) return null;
    return segmentMessageToEvent(type as SegmentCall, message as Json);
  });
}

function segmentMessageToEvent(call: SegmentCall, message: Json): Json {
  const properties = isObject(message.properties) ? message.properties : undefined;
  const common: Json = {
    userId: message.userId ?? undefined,
    anonymousId: message.anonymousId ?? undefined,
    timestamp: message.timestamp ?? undefined,
    messageId: message.messageId ?? undefined,
    sessionId: sessionIdOf(message),
    context: isObject(message.context) ? message.context : undefined,
  };
  switch (call) {
    case 'track':
      // CONTRACT.md: `properties: null` is {}; anything else that is not an object stays invalid.
      return { ...common, event: message.event, properties: message.properties === null ? {} : message.properties };
    case 'page': {
      const url = properties?.url ?? (isObject(message.context) && isObject(message.context.page) ? message.context.page.url : undefined);
      return { ...common, event: 'page_view', properties: { ...properties, ...(url ? { url } : { screen: message.name }) } };
    }
    case 'screen':
      return { ...common, event: 'screen_view', properties: { ...properties, screen: message.name } };
    case 'identify':
      return { ...common, event: 'identify' };
  }
}

/**
 * Segment carries no session field; mobile SDKs and ours put one in context or properties. Mobile
 * SDKs send a number (a start time): it becomes a string (CONTRACT.md).
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
