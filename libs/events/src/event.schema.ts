import { z } from 'zod';
import { DAY_MS, printableText } from '@foresight/platform';

export const MAX_EVENTS_PER_BATCH = 1000;
export const MAX_EVENT_BYTES = 32 * 1024;
export const MAX_EVENT_NAME_LENGTH = 255;
/** How far past its arrival an event may be dated (the messageId dedupe keys outlive their events by as much). */
export const MAX_FUTURE_MS = DAY_MS;

/** An event name is 1 to 255 characters of printable Unicode. Model target events follow it too. */
export const eventNameSchema = printableText(MAX_EVENT_NAME_LENGTH);
/** A user or anonymous id, and a session id, wherever one comes in (events, queries, batch predictions). */
export const userIdSchema = printableText(255);
export const sessionIdSchema = printableText(255);
const nonNegativeMs = z.number().finite().min(0).max(2_147_483_647);

/** The fields of one event, before behavioral rules. */
export const eventSchema = z
  .object({
    event: eventNameSchema,
    userId: userIdSchema.optional(),
    anonymousId: userIdSchema.optional(),
    // Its pattern is anchored with no nested repetition: linear, so it needs no length bound first.
    // A timestamp without a zone is UTC (eventInstant reads it so).
    timestamp: z.iso.datetime({ offset: true, local: true }).optional(),
    messageId: printableText(128).optional(),
    sessionId: sessionIdSchema.optional(),
    properties: z.record(z.string(), z.unknown()).optional(),
    context: z.record(z.string(), z.unknown()).optional(),
  })
  .superRefine((event, ctx) => {
    if (event.userId === undefined && event.anonymousId === undefined) {
      ctx.addIssue({ code: 'custom', path: ['userId'], message: 'userId or anonymousId is required' });
    }
    if (event.timestamp !== undefined) {
      const at = eventInstant(event.timestamp);
      if (at > Date.now() + MAX_FUTURE_MS) ctx.addIssue({ code: 'custom', path: ['timestamp'], message: 'more than 24 hours in the future' });
      if (at < 0) ctx.addIssue({ code: 'custom', path: ['timestamp'], message: 'before 1970' });
    }
    checkBehavioralSignals(event.event, event.properties ?? {}, ctx);
  });

export type EventInput = z.infer<typeof eventSchema>;

const ZONE = /(?:Z|[+-]\d{2}(?::?\d{2})?)$/i;

/** The instant of a validated event timestamp in ms; one written without a zone is UTC, not the server's local time. */
export function eventInstant(timestamp: string): number {
  return Date.parse(ZONE.test(timestamp) ? timestamp : `${timestamp}Z`);
}

/** First-class signals are stored in typed columns; their types are checked here. */
function checkBehavioralSignals(name: string, properties: Record<string, unknown>, ctx: z.RefinementCtx): void {
  const issue = (key: string, message: string) => ctx.addIssue({ code: 'custom', path: ['properties', key], message });
  if ((name === 'screen_view' || name === 'page_view') && !isText(properties.screen) && !isText(properties.url)) {
    issue(name === 'screen_view' ? 'screen' : 'url', `${name} needs properties.screen or properties.url (a string)`);
  }
  for (const key of ['screen', 'url'] as const) {
    if (properties[key] !== undefined && !isText(properties[key])) issue(key, 'a string of 1 to 2048 characters');
  }
  if (name === 'scroll' || properties.depth !== undefined) {
    const depth = properties.depth;
    if (typeof depth !== 'number' || !(depth >= 0 && depth <= 1)) issue('depth', 'scroll depth is a number from 0 to 1');
    // Stored as real: Postgres refuses a non-zero value that a 32-bit float rounds to 0 (1e-320, say).
    else if (depth !== 0 && Math.fround(depth) === 0) issue('depth', 'scroll depth is 0 or at least 1e-45 (stored as a 32-bit float)');
  }
  for (const key of ['dwellMs', 'hesitationMs'] as const) {
    if (properties[key] !== undefined && !nonNegativeMs.safeParse(properties[key]).success) {
      issue(key, 'milliseconds: a number >= 0');
    }
  }
}

function isText(value: unknown): value is string {
  return typeof value === 'string' && value.length >= 1 && value.length <= 2048;
}
