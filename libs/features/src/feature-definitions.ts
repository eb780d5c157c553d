import { sessionCutter } from '@foresight/events';
import { DAY_MS } from '@foresight/platform';
import type { FeatureEvent } from './feature-event';

/** The longest look-back of any feature: events older than this before the cutoff change nothing. */
export const FEATURE_WINDOW_DAYS = 30;
const COUNT_WINDOWS_DAYS = [1, 7, 30] as const;

/** Names and order of a model version's inputs; stored with the version so serving builds the same vector. */
export interface FeatureManifest {
  version: 1;
  /** Event names counted per window (chosen at training time, e.g. the most frequent ones). */
  trackedEvents: string[];
  names: string[];
}

export function buildManifest(trackedEvents: readonly string[]): FeatureManifest {
  const names: string[] = [];
  for (const event of trackedEvents) for (const days of COUNT_WINDOWS_DAYS) names.push(`count_${days}d:${event}`);
  names.push(
    ...COUNT_WINDOWS_DAYS.map((days) => `events_${days}d`),
    'sessions_7d',
    'sessions_30d',
    'mean_session_seconds_30d',
    'events_per_session_30d',
    'total_dwell_seconds_30d',
    'mean_hesitation_ms_30d',
    'mean_scroll_depth_30d',
    'distinct_events_30d',
    'days_since_last_event',
    'days_since_first_event',
  );
  return { version: 1, trackedEvents: [...trackedEvents], names };
}

/** When the user was first and last seen at or before the cutoff (epoch ms), whatever the window. */
export interface Activity {
  firstSeenAt: number;
  lastSeenAt: number;
}

/**
 * The one definition of every feature, evaluated "as of" `cutoff`: only events strictly before it
 * count. `events` are the user's events, sorted by time; any outside [cutoff - 30 d, cutoff) are ignored.
 */
export function computeFeatures(events: readonly FeatureEvent[], activity: Activity, cutoff: number, manifest: FeatureManifest): Float32Array {
  const vector = new Float32Array(manifest.names.length);
  const tracked = new Map(manifest.trackedEvents.map((name, i) => [name, i]));
  const windowStart = cutoff - FEATURE_WINDOW_DAYS * DAY_MS;
  const totals = [0, 0, 0];
  const distinct = new Set<string>();
  let dwellMs = 0;
  let hesitationSum = 0;
  let hesitationCount = 0;
  let scrollSum = 0;
  let scrollCount = 0;
  const sessions = new Map<string, { start: number; end: number; events: number }>();
  const sessionOf = sessionCutter();

  for (const e of events) {
    if (e.occurredAt < windowStart || e.occurredAt >= cutoff) continue;
    const age = cutoff - e.occurredAt;
    const index = tracked.get(e.event);
    COUNT_WINDOWS_DAYS.forEach((days, w) => {
      if (age <= days * DAY_MS) {
        totals[w]++;
        if (index !== undefined) vector[index * COUNT_WINDOWS_DAYS.length + w]++;
      }
    });
    distinct.add(e.event);
    if (e.dwellMs !== null) dwellMs += e.dwellMs;
    if (e.hesitationMs !== null) {
      hesitationSum += e.hesitationMs;
      hesitationCount++;
    }
    if (e.scrollDepth !== null) {
      scrollSum += e.scrollDepth;
      scrollCount++;
    }

    // Keyed apart: a client could name its session like a derived one.
    const key = `${e.sessionId === null ? 'd' : 's'}:${sessionOf(e.occurredAt, e.sessionId)}`;
    const session = sessions.get(key);
    if (session) {
      session.end = e.occurredAt;
      session.events++;
    } else {
      sessions.set(key, { start: e.occurredAt, end: e.occurredAt, events: 1 });
    }
  }

  let at = manifest.trackedEvents.length * COUNT_WINDOWS_DAYS.length;
  for (const total of totals) vector[at++] = total;
  let sessions7d = 0;
  let durationMs = 0;
  for (const s of sessions.values()) {
    if (cutoff - s.start <= 7 * DAY_MS) sessions7d++;
    durationMs += s.end - s.start;
  }
  const sessionCount = sessions.size;
  vector[at++] = sessions7d;
  vector[at++] = sessionCount;
  vector[at++] = sessionCount > 0 ? durationMs / sessionCount / 1000 : 0;
  vector[at++] = sessionCount > 0 ? totals[2] / sessionCount : 0;
  vector[at++] = dwellMs / 1000;
  vector[at++] = hesitationCount > 0 ? hesitationSum / hesitationCount : 0;
  vector[at++] = scrollCount > 0 ? scrollSum / scrollCount : 0;
  vector[at++] = distinct.size;
  vector[at++] = (cutoff - activity.lastSeenAt) / DAY_MS;
  vector[at] = (cutoff - activity.firstSeenAt) / DAY_MS;
  return vector;
}

/**
 * The training side: a user's whole history (sorted) evaluated at a past cutoff. Finds the same
 * window and activity that serving loads with SQL, then calls the same definition.
 * Returns undefined when the user had no event before the cutoff.
 */
export function featuresAt(
  history: readonly FeatureEvent[],
  cutoff: number,
  manifest: FeatureManifest,
  /** When `history` does not reach back to the user's first event (training loads a bounded range). */
  firstSeenAt = history[0]?.occurredAt,
): Float32Array | undefined {
  const end = firstIndexAtOrAfter(history, cutoff);
  if (end === 0) return undefined;
  const start = firstIndexAtOrAfter(history, cutoff - FEATURE_WINDOW_DAYS * DAY_MS);
  const activity = { firstSeenAt: Math.min(firstSeenAt, history[0].occurredAt), lastSeenAt: history[end - 1].occurredAt };
  return computeFeatures(history.slice(start, end), activity, cutoff, manifest);
}

/** Binary search over a time-sorted history. */
export function firstIndexAtOrAfter(history: readonly FeatureEvent[], time: number): number {
  let low = 0;
  let high = history.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if (history[mid].occurredAt < time) low = mid + 1;
    else high = mid;
  }
  return low;
}
