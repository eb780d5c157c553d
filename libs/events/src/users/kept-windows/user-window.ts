import type { StoredUserId } from '../stored-user-id';
import type { UserEvent, UserEventWindow } from '../user-event';

/**
 * An event as FEATURE_EVENT_ARRAY sends it (and user_windows stores it). Windows kept before string
 * properties existed have no ninth element.
 */
type FeatureEventArray = [number, string, string | null, string | null, number | null, number | null, number | null, Record<string, number> | null, (Record<string, string> | null)?];

/**
 * A user's window as KEPT_WINDOW_SQL and EVENTS_WINDOW_SQL answer it: the events from the window's
 * start on with no end, and the latest event before the moment it was read (its `taken_at`). A kept
 * window read with the events stored since carries them apart, from `recent_from` on.
 */
export interface UserWindowRow {
  revision: string | null;
  /** What keeping the window read checks (REVISION_TO_KEEP); null without an activity row. */
  revision_to_keep: string | null;
  first_seen: number | null;
  last_seen: number | null;
  /** JSON text: FeatureEventArray[], oldest first. */
  events: string;
  /** Epoch ms from which `recent` takes the place of `events`; null or absent when `events` holds them all. */
  recent_from?: number | null;
  /** JSON text: FeatureEventArray[] dated from `recent_from` on, oldest first. */
  recent?: string | null;
}

/** A window bulk scoring read, to keep in user_windows under the revision it was read at (`revision`: REVISION_TO_KEEP as read). */
export interface UserWindowSnapshot {
  organizationId: string;
  user: StoredUserId;
  revision: string;
  windowFrom: number;
  takenAt: number;
  firstSeen: number;
  lastSeen: number;
  /** JSON text, as UserWindowRow.events (eventsText). */
  events: string;
}

/** A window row with its JSON text parsed, to cut more than one window out of (windowIn) or count its events. */
export interface ParsedWindowRow extends Omit<UserWindowRow, 'events' | 'recent'> {
  events: FeatureEventArray[];
  /** The events stored since (`recent`); empty without. */
  recent: FeatureEventArray[];
}

export function parseWindowRow(row: UserWindowRow): ParsedWindowRow {
  return { ...row, events: JSON.parse(row.events) as FeatureEventArray[], recent: row.recent == null ? [] : (JSON.parse(row.recent) as FeatureEventArray[]) };
}

/**
 * The window [from, until) of a user's row, for any `from` at or after the row's `window_from` and
 * `until` at or after its `taken_at` (the events have no end, and nothing was stored since at the
 * row's revision, or only what `recent` holds); undefined when the user has no event before `until`.
 * The latest event before `until` is the last of the row's events before it, or `last_seen` when
 * none is later.
 */
export function windowAsOf(row: UserWindowRow, from: number, until: number): UserEventWindow | undefined {
  return windowIn(parseWindowRow(row), from, until);
}

/** windowAsOf of a row parsed once. */
export function windowIn(row: ParsedWindowRow, from: number, until: number): UserEventWindow | undefined {
  const { recent } = row;
  // An event stored since may be dated before the first kept one (delta_from precedes the taking).
  const firstSeen = Math.min(row.first_seen ?? Infinity, recent[0]?.[0] ?? Infinity);
  if (firstSeen >= until) return undefined;
  const events: UserEvent[] = [];
  let latest = row.last_seen ?? -Infinity;
  const take = (arrays: FeatureEventArray[], before: number) => {
    for (const [occurredAt, event, sessionId, screen, dwellMs, hesitationMs, scrollDepth, numbers, strings = null] of arrays) {
      if (occurredAt >= before) break;
      latest = Math.max(latest, occurredAt);
      if (occurredAt >= from) events.push({ occurredAt, event, sessionId, screen, dwellMs, hesitationMs, scrollDepth, numbers, strings });
    }
  };
  take(row.events, Math.min(until, row.recent_from ?? Infinity));
  take(recent, until);
  return { events, firstSeenAt: firstSeen, lastSeenAt: latest, revision: row.revision };
}

/** The JSON text of events, as UserWindowRow.events holds them. */
export function eventsText(events: readonly UserEvent[]): string {
  return JSON.stringify(events.map((e): FeatureEventArray => [e.occurredAt, e.event, e.sessionId, e.screen, e.dwellMs, e.hesitationMs, e.scrollDepth, e.numbers, e.strings]));
}

/**
 * The window to keep of a user read from `from` on with no end (bulk scoring's read): the events,
 * first seen ever (`firstSeen`, from a read of every event, or the first event read), latest event
 * before `takenAt` (the history's, else `lastSeenBefore`, read with the first sighting). None without
 * a revision (no activity row to keep it under) or without an event before `takenAt`.
 */
export function windowToKeep(
  organizationId: string,
  user: StoredUserId,
  history: readonly UserEvent[],
  revision: string | undefined,
  firstSeen: number | undefined,
  from: number,
  takenAt: number,
  lastSeenBefore: number | null = null,
): UserWindowSnapshot | undefined {
  if (revision === undefined) return undefined;
  let before = history.length;
  while (before > 0 && history[before - 1].occurredAt >= takenAt) before--;
  const lastSeen = before > 0 ? history[before - 1].occurredAt : lastSeenBefore;
  if (lastSeen === null) return undefined;
  return {
    organizationId,
    user,
    revision,
    windowFrom: from,
    takenAt,
    firstSeen: Math.min(firstSeen ?? Infinity, history[0]?.occurredAt ?? Infinity),
    lastSeen,
    events: eventsText(history),
  };
}
