import { randomUUID } from 'node:crypto';
import type { EventInput } from '../event.schema';

/** One row of the events table, as the writer inserts it. */
export interface EventRow {
  organizationId: string;
  messageId: string;
  event: string;
  userId: string | null;
  anonymousId: string | null;
  sessionId: string | null;
  occurredAt: string;
  receivedAt: string;
  screen: string | null;
  scrollDepth: number | null;
  dwellMs: number | null;
  hesitationMs: number | null;
  properties: string | null;
  context: string | null;
}

/** Lifts the first-class behavioral signals out of properties into typed columns. */
/** `receivedAt` is an ISO string, formatted once per request. */
export function toEventRow(organizationId: string, input: EventInput, receivedAt: string): EventRow {
  const properties = input.properties ?? {};
  const screen = properties.screen ?? properties.url;
  return {
    organizationId,
    messageId: input.messageId ?? randomUUID(),
    event: input.event,
    userId: input.userId ?? null,
    anonymousId: input.anonymousId ?? null,
    sessionId: input.sessionId ?? null,
    occurredAt: input.timestamp ? new Date(input.timestamp).toISOString() : receivedAt,
    receivedAt,
    screen: typeof screen === 'string' ? screen : null,
    scrollDepth: typeof properties.depth === 'number' ? properties.depth : null,
    dwellMs: typeof properties.dwellMs === 'number' ? Math.round(properties.dwellMs) : null,
    hesitationMs: typeof properties.hesitationMs === 'number' ? Math.round(properties.hesitationMs) : null,
    properties: input.properties ? JSON.stringify(input.properties) : null,
    context: input.context ? JSON.stringify(input.context) : null,
  };
}
