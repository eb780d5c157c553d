import { sessionCutter } from '@foresight/events';
import { DAY_MS } from '@foresight/platform';
import type { FeatureEvent } from './feature-event';
import { COUNT_WINDOWS_DAYS, type FeatureManifest, type NumericProperty, numericPropertyLabel, type StringValue, stringValueLabel, TREND_WEEKS } from './feature-manifest';
import { normalisedScreenOf } from './screen-path';

/** The longest look-back of any feature: events older than this before the cutoff change nothing. */
export const FEATURE_WINDOW_DAYS = 30;
/** days_since_target_event (and days_since:<event>) of a user without that event in the window: "longer than the window". */
export const TARGET_NOT_IN_WINDOW_DAYS = FEATURE_WINDOW_DAYS + 1;
const WINDOW_COUNT = COUNT_WINDOWS_DAYS.length;
/** Each count window's length, in ms: an event counts in window w when its age is at most WINDOW_MS[w]. */
const WINDOW_MS = COUNT_WINDOWS_DAYS.map((days) => days * DAY_MS);
const LAST_WEEK_DAYS = 7;
const LAST_WEEK_MS = LAST_WEEK_DAYS * DAY_MS;
const HOUR_MS = 3_600_000;
/** Working hours, in UTC (the events carry no time zone): 08:00 to 18:00, Monday to Friday. */
const WORK_START_HOUR = 8;
const WORK_END_HOUR = 18;
/** Day numbers since the epoch are Thursday-based: (day + 4) % 7 is 0 on Sundays, 6 on Saturdays. */
const EPOCH_WEEKDAY = 4;
/** The least-squares slope's weights over TREND_WEEKS weekly values, newest first (x centred, newest highest). */
const TREND_WEIGHTS = Array.from({ length: TREND_WEEKS }, (_, w) => (TREND_WEEKS - 1) / 2 - w);
const TREND_DENOMINATOR = TREND_WEIGHTS.reduce((sum, x) => sum + x * x, 0);
/**
 * The largest magnitude of a feature, and of a numeric property value as it is counted into one. Far
 * beyond any real count, duration or amount, yet far below float32's 3.4e38, so that the float32
 * maths of training and ONNX (a square, a sum over millions of rows) stays finite too: one event's
 * `quantity: 1e39` (a finite double, an infinite float32) must not stop an organization's training.
 */
export const FEATURE_VALUE_LIMIT = 1e15;

/** The value within ±FEATURE_VALUE_LIMIT; NaN, which no definition should produce, as 0. */
function bounded(value: number): number {
  return Number.isNaN(value) ? 0 : Math.min(Math.max(value, -FEATURE_VALUE_LIMIT), FEATURE_VALUE_LIMIT);
}

/** When the user was first and last seen at or before the cutoff (epoch ms), whatever the window. */
export interface Activity {
  firstSeenAt: number;
  lastSeenAt: number;
}

/** Sums and counts of the signals features average (over the window, or on one screen). */
interface AveragedSignals {
  hesitationSum: number;
  hesitationCount: number;
  scrollSum: number;
  scrollCount: number;
}

/** Sums and counts of the signals measured on one screen over the window. */
interface ScreenTotals extends AveragedSignals {
  views7d: number;
  views30d: number;
  dwellMs7d: number;
  dwellMs30d: number;
}

/** A session's first and last event in the window. */
interface SessionSpan {
  start: number;
  end: number;
}

/** A tracked numeric property's values over the window. */
interface PropertyTotals {
  sum: number;
  count: number;
}

/** One pass over a user's window; every feature is read off it. */
interface WindowSummary extends AveragedSignals {
  cutoff: number;
  activity: Activity;
  /** Tracked event e, window w at e * WINDOW_COUNT + w. */
  eventCounts: Float64Array;
  totals: number[];
  /** Tracked event e: its latest occurrence in the window, -Infinity without one. */
  lastEventAt: Float64Array;
  /** Events of week w before the cutoff (ages in (7w, 7(w+1)] days), w < TREND_WEEKS. */
  weeklyEvents: number[];
  /** Sessions started in week w before the cutoff. */
  weeklySessions: number[];
  weekendEvents: number;
  workingHoursEvents: number;
  /** Sum of ln(1 + seconds) over the views with a dwell: a mean that one tab left open cannot swamp. */
  logDwellSum: number;
  /** Bit b: an event 24·b to 24·(b+1) hours before the cutoff. */
  activeDays: number;
  screens: ScreenTotals[];
  /** Per tracked numeric property, in manifest order. */
  properties: PropertyTotals[];
  /** Per tracked string value (CompiledManifests.valueIndexes): how often its event sent it. */
  valueCounts: Float64Array;
  /** Per tracked event and key (CompiledManifests.valuePairs): the value its latest event sent, undefined without one. */
  latestValues: Array<string | undefined>;
  views30d: number;
  distinctScreens: number;
  distinctEvents: number;
  sessions7d: number;
  sessions: number;
  sessionMs: number;
  dwellMs: number;
  dwellCount: number;
  /** Per target event (CompiledManifests.targets): its latest occurrence in the window, -Infinity without one. */
  lastTargetAt: number[];
}

type Extractor = (s: WindowSummary) => number;

/** A string property key tracked for one event: its index in latestValues, its tracked values' in valueCounts. */
interface TrackedKey {
  key: string;
  pair: number;
  values: Map<string, number>;
}

/**
 * Manifests made ready to compute over one pass of a window: indexes of everything any of them
 * tracks (the union), and per manifest one extractor per feature, reading the shared summary.
 */
interface CompiledManifests {
  events: Map<string, number>;
  screens: Map<string, number>;
  /** Per event name, the keys it is tracked for and their index in WindowSummary.properties. */
  propertiesByEvent: Map<string, Array<{ key: string; index: number }>>;
  propertyIndexes: Map<string, number>;
  /** Per event name, the string property keys it is tracked for. */
  valuesByEvent: Map<string, TrackedKey[]>;
  valueIndexes: Map<string, number>;
  valuePairs: Map<string, number>;
  /** The manifests' target events, each with its index in WindowSummary.lastTargetAt. */
  targets: Map<string, number>;
  extractors: Extractor[][];
}

const mean = (sum: number, count: number) => (count > 0 ? sum / count : 0);
const popcount = (bits: number) => {
  let count = 0;
  for (let b = bits; b !== 0; b &= b - 1) count++;
  return count;
};
/** Per week, positive when rising: the least-squares slope of weekly values given newest first. */
const weeklySlope = (weekly: readonly number[]) => weekly.reduce((sum, value, w) => sum + TREND_WEIGHTS[w] * value, 0) / TREND_DENOMINATOR;
const activeDaysOfWeek = (s: WindowSummary, w: number) => popcount((s.activeDays >>> (w * LAST_WEEK_DAYS)) & ((1 << LAST_WEEK_DAYS) - 1));

/** Features that describe the whole window, by name. */
const WINDOW_FEATURES: Record<string, Extractor> = {
  ...Object.fromEntries(COUNT_WINDOWS_DAYS.map((days, w) => [`events_${days}d`, (s: WindowSummary) => s.totals[w]])),
  events_8_to_14d: (s) => s.weeklyEvents[1],
  events_15_to_21d: (s) => s.weeklyEvents[2],
  events_22_to_28d: (s) => s.weeklyEvents[3],
  // Log ratio of the last week to the one before (+1 each): 0 steady, > 0 rising, < 0 fading.
  events_trend_7d: (s) => Math.log((s.totals[COUNT_WINDOWS_DAYS.indexOf(LAST_WEEK_DAYS)] + 1) / (s.weeklyEvents[1] + 1)),
  events_weekly_slope: (s) => weeklySlope(s.weeklyEvents),
  active_days_weekly_slope: (s) => weeklySlope(Array.from({ length: TREND_WEEKS }, (_, w) => activeDaysOfWeek(s, w))),
  sessions_weekly_slope: (s) => weeklySlope(s.weeklySessions),
  weekend_event_share_30d: (s) => mean(s.weekendEvents, s.totals[WINDOW_COUNT - 1]),
  working_hours_event_share_30d: (s) => mean(s.workingHoursEvents, s.totals[WINDOW_COUNT - 1]),
  active_days_7d: (s) => activeDaysOfWeek(s, 0),
  active_days_30d: (s) => popcount(s.activeDays),
  sessions_7d: (s) => s.sessions7d,
  sessions_30d: (s) => s.sessions,
  mean_session_seconds_30d: (s) => mean(s.sessionMs, s.sessions) / 1000,
  events_per_session_30d: (s) => mean(s.totals[WINDOW_COUNT - 1], s.sessions),
  screen_views_30d: (s) => s.views30d,
  distinct_screens_30d: (s) => s.distinctScreens,
  distinct_events_30d: (s) => s.distinctEvents,
  total_dwell_seconds_30d: (s) => s.dwellMs / 1000,
  mean_view_dwell_seconds_30d: (s) => mean(s.dwellMs, s.dwellCount) / 1000,
  mean_log_view_dwell_seconds_30d: (s) => mean(s.logDwellSum, s.dwellCount),
  mean_hesitation_ms_30d: (s) => mean(s.hesitationSum, s.hesitationCount),
  mean_scroll_depth_30d: (s) => mean(s.scrollSum, s.scrollCount),
  days_since_last_event: (s) => (s.cutoff - s.activity.lastSeenAt) / DAY_MS,
  days_since_first_event: (s) => (s.cutoff - s.activity.firstSeenAt) / DAY_MS,
};

/** The one feature that depends on the manifest's target event; -Infinity is "not in the window". */
const DAYS_SINCE_TARGET_EVENT = 'days_since_target_event';
/** The family of days since a tracked event's latest occurrence (`days_since:<event>`). */
const DAYS_SINCE_EVENT = 'days_since';
const daysSince = (lastAt: number, s: WindowSummary) => (lastAt === -Infinity ? TARGET_NOT_IN_WINDOW_DAYS : (s.cutoff - lastAt) / DAY_MS);

/** Features of one tracked screen (`<family>:<screen>`), given the screen's totals. */
const SCREEN_FEATURES: Record<string, (screen: ScreenTotals, s: WindowSummary) => number> = {
  screen_views_7d: (screen) => screen.views7d,
  screen_views_30d: (screen) => screen.views30d,
  screen_view_share_30d: (screen, s) => mean(screen.views30d, s.views30d),
  screen_dwell_seconds_7d: (screen) => screen.dwellMs7d / 1000,
  screen_dwell_seconds_30d: (screen) => screen.dwellMs30d / 1000,
  screen_mean_hesitation_ms_30d: (screen) => mean(screen.hesitationSum, screen.hesitationCount),
  screen_mean_scroll_depth_30d: (screen) => mean(screen.scrollSum, screen.scrollCount),
};

/** Features of one tracked string value (`<family>:<event>/<key>=<value>`): how often sent, and whether the latest sent it (a state: the plan a user is on). */
const VALUE_COUNT = 'value_count_30d';
const VALUE_IS_LATEST = 'value_is_latest';

/** Features of one tracked numeric property (`<family>:<event>/<key>`), given its totals. */
const PROPERTY_FEATURES: Record<string, (property: PropertyTotals) => number> = {
  property_sum_30d: (property) => property.sum,
  property_mean_30d: (property) => mean(property.sum, property.count),
};

/**
 * Compiled plans by their manifests (the same objects, in the same order), under the first one: the
 * latest PLANS_PER_MANIFEST sets it was first of (an organization's serving set changes as other
 * models are retrained beside it).
 */
const compiled = new WeakMap<FeatureManifest, Array<{ manifests: readonly FeatureManifest[]; plan: CompiledManifests }>>();
const PLANS_PER_MANIFEST = 8;

function compiledFor(manifests: readonly FeatureManifest[]): CompiledManifests {
  let plans = compiled.get(manifests[0]);
  if (!plans) compiled.set(manifests[0], (plans = []));
  const same = plans.find((entry) => entry.manifests.length === manifests.length && entry.manifests.every((manifest, i) => manifest === manifests[i]));
  if (same) return same.plan;
  const plan = compile(manifests);
  if (plans.push({ manifests: [...manifests], plan }) > PLANS_PER_MANIFEST) plans.shift();
  return plan;
}

function compile(manifests: readonly FeatureManifest[]): CompiledManifests {
  const indexed = <T>(values: Iterable<T>) => new Map([...new Set(values)].map((value, i) => [value, i]));
  const events = indexed(manifests.flatMap((manifest) => manifest.trackedEvents));
  const screens = indexed(manifests.flatMap((manifest) => manifest.trackedScreens ?? []));
  // By event and key: two manifests' properties may spell one label (`a/b` + `c`, `a` + `b/c`).
  const propertyKey = ({ event, key }: NumericProperty) => `${event}\u0000${key}`;
  const trackedProperties = new Map(manifests.flatMap((manifest) => manifest.trackedProperties ?? []).map((property) => [propertyKey(property), property]));
  const propertyIndexes = indexed(trackedProperties.keys());
  const propertiesByEvent = new Map<string, Array<{ key: string; index: number }>>();
  [...trackedProperties.values()].forEach(({ event, key }, index) => propertiesByEvent.set(event, [...(propertiesByEvent.get(event) ?? []), { key, index }]));
  // Values by event, key and value, and the keys by event and key, for the same reason as properties.
  const valueKey = ({ event, key, value }: StringValue) => `${event}\u0000${key}\u0000${value}`;
  const trackedValues = new Map(manifests.flatMap((manifest) => manifest.trackedValues ?? []).map((value) => [valueKey(value), value]));
  const valueIndexes = indexed(trackedValues.keys());
  const valuePairs = indexed([...trackedValues.values()].map(propertyKey));
  const valuesByEvent = new Map<string, TrackedKey[]>();
  [...trackedValues.values()].forEach((tracked, index) => {
    const keys = valuesByEvent.get(tracked.event) ?? [];
    const pair = valuePairs.get(propertyKey(tracked)) as number;
    let entry = keys.find((candidate) => candidate.pair === pair);
    if (!entry) keys.push((entry = { key: tracked.key, pair, values: new Map() }));
    entry.values.set(tracked.value, index);
    valuesByEvent.set(tracked.event, keys);
  });
  const targets = indexed(manifests.flatMap((manifest) => (manifest.targetEvent === undefined ? [] : [manifest.targetEvent])));
  const extractorsOf = (manifest: FeatureManifest) => {
    // This manifest's properties by label (the last of any two spelling one, as buildManifest keeps one).
    const properties = new Map((manifest.trackedProperties ?? []).map((property) => [numericPropertyLabel(property), propertyIndexes.get(propertyKey(property))]));
    const values = new Map((manifest.trackedValues ?? []).map((value) => [stringValueLabel(value), value]));
    return manifest.names.map((name): Extractor => {
      const window = WINDOW_FEATURES[name];
      if (window) return window;
      if (name === DAYS_SINCE_TARGET_EVENT) {
        const target = manifest.targetEvent === undefined ? undefined : targets.get(manifest.targetEvent);
        return target === undefined ? (s) => daysSince(-Infinity, s) : (s) => daysSince(s.lastTargetAt[target], s);
      }
      const separator = name.indexOf(':');
      const family = name.slice(0, separator);
      const key = name.slice(separator + 1);
      const counted = COUNT_WINDOWS_DAYS.findIndex((days) => family === `count_${days}d`);
      // Only what this manifest tracks: the union may track a name another manifest asked for.
      const event = manifest.trackedEvents.includes(key) ? events.get(key) : undefined;
      if (counted >= 0 && event !== undefined) return (s) => s.eventCounts[event * WINDOW_COUNT + counted];
      if (family === DAYS_SINCE_EVENT && event !== undefined) return (s) => daysSince(s.lastEventAt[event], s);
      const screenFeature = SCREEN_FEATURES[family];
      const screen = (manifest.trackedScreens ?? []).includes(key) ? screens.get(key) : undefined;
      if (screenFeature && screen !== undefined) return (s) => screenFeature(s.screens[screen], s);
      const propertyFeature = PROPERTY_FEATURES[family];
      const property = properties.get(key);
      if (propertyFeature && property !== undefined) return (s) => propertyFeature(s.properties[property]);
      const value = values.get(key);
      if (family === VALUE_COUNT && value !== undefined) {
        const index = valueIndexes.get(valueKey(value)) as number;
        return (s) => s.valueCounts[index];
      }
      if (family === VALUE_IS_LATEST && value !== undefined) {
        const pair = valuePairs.get(propertyKey(value)) as number;
        return (s) => (s.latestValues[pair] === value.value ? 1 : 0);
      }
      throw new RangeError(`the manifest names feature "${name}", which no definition computes`);
    });
  };
  return { events, screens, propertiesByEvent, propertyIndexes, valuesByEvent, valueIndexes, valuePairs, targets, extractors: manifests.map(extractorsOf) };
}

const emptyScreen = (): ScreenTotals => ({
  views7d: 0,
  views30d: 0,
  dwellMs7d: 0,
  dwellMs30d: 0,
  hesitationSum: 0,
  hesitationCount: 0,
  scrollSum: 0,
  scrollCount: 0,
});

/**
 * The one definition of every feature, evaluated "as of" `cutoff`: only events strictly before it
 * count. `events` are the user's events, sorted by time; any outside [cutoff - 30 d, cutoff) are ignored.
 */
export function computeFeatures(events: readonly FeatureEvent[], activity: Activity, cutoff: number, manifest: FeatureManifest): Float32Array {
  const plan = compiledFor([manifest]);
  return extract(summarise(events, activity, cutoff, plan), plan.extractors[0]);
}

/**
 * computeFeatures for each of several manifests (an organization's serving models), from one pass
 * over the events: the same summary, read by each manifest's extractors, so each vector is exactly
 * what computeFeatures answers for its manifest.
 */
export function computeFeaturesOfEach(events: readonly FeatureEvent[], activity: Activity, cutoff: number, manifests: readonly FeatureManifest[]): Float32Array[] {
  if (manifests.length === 0) return [];
  const plan = compiledFor(manifests);
  const summary = summarise(events, activity, cutoff, plan);
  return plan.extractors.map((extractors) => extract(summary, extractors));
}

function extract(summary: WindowSummary, extractors: readonly Extractor[]): Float32Array {
  // Filled by index: Float32Array.from with a mapper walks the iterator protocol, a third of the time.
  const features = new Float32Array(extractors.length);
  // Bounded here, the one place every training row and every served vector is made.
  for (let i = 0; i < extractors.length; i++) features[i] = bounded(extractors[i](summary));
  return features;
}

function summarise(events: readonly FeatureEvent[], activity: Activity, cutoff: number, plan: CompiledManifests): WindowSummary {
  const s: WindowSummary = {
    cutoff,
    activity,
    eventCounts: new Float64Array(plan.events.size * WINDOW_COUNT),
    totals: COUNT_WINDOWS_DAYS.map(() => 0),
    lastEventAt: new Float64Array(plan.events.size).fill(-Infinity),
    weeklyEvents: new Array<number>(TREND_WEEKS).fill(0),
    weeklySessions: new Array<number>(TREND_WEEKS).fill(0),
    weekendEvents: 0,
    workingHoursEvents: 0,
    logDwellSum: 0,
    activeDays: 0,
    screens: Array.from({ length: plan.screens.size }, emptyScreen),
    properties: Array.from({ length: plan.propertyIndexes.size }, () => ({ sum: 0, count: 0 })),
    valueCounts: new Float64Array(plan.valueIndexes.size),
    latestValues: new Array<string | undefined>(plan.valuePairs.size),
    views30d: 0,
    distinctScreens: 0,
    distinctEvents: 0,
    sessions7d: 0,
    sessions: 0,
    sessionMs: 0,
    dwellMs: 0,
    dwellCount: 0,
    hesitationSum: 0,
    hesitationCount: 0,
    scrollSum: 0,
    scrollCount: 0,
    lastTargetAt: Array.from({ length: plan.targets.size }, () => -Infinity),
  };
  const windowStart = cutoff - FEATURE_WINDOW_DAYS * DAY_MS;
  const distinctEvents = new Set<string>();
  const distinctScreens = new Set<string>();
  // Sessions the client tagged and sessions derived from untagged events, apart: their ids never collide.
  const clientSessions = new Map<string, SessionSpan>();
  const derivedSessions = new Map<string, SessionSpan>();
  const sessionOf = sessionCutter();
  let currentSession: SessionSpan | undefined;
  /** The screen the user is on: the last one an event of this session was sent from. */
  let currentScreen: string | null = null;

  // One plain loop, no closure or key string per event: serving runs it per model on every first request.
  for (const e of events) {
    if (e.occurredAt < windowStart || e.occurredAt >= cutoff) continue;
    const age = cutoff - e.occurredAt;
    const tracked = plan.events.get(e.event);
    for (let w = 0; w < WINDOW_COUNT; w++) {
      if (age <= WINDOW_MS[w]) {
        s.totals[w]++;
        if (tracked !== undefined) s.eventCounts[tracked * WINDOW_COUNT + w]++;
      }
    }
    if (tracked !== undefined) s.lastEventAt[tracked] = e.occurredAt;
    const week = Math.ceil(age / LAST_WEEK_MS) - 1;
    if (week < TREND_WEEKS) s.weeklyEvents[week]++;
    addRhythm(s, e.occurredAt);
    s.activeDays |= 1 << (Math.ceil(age / DAY_MS) - 1);
    distinctEvents.add(e.event);
    const target = plan.targets.get(e.event);
    if (target !== undefined) s.lastTargetAt[target] = e.occurredAt;
    if (e.numbers !== null) addProperties(s.properties, plan.propertiesByEvent.get(e.event), e.numbers);
    // Truthy: a window kept before string properties existed reads them as absent.
    if (e.strings) addValues(s, plan.valuesByEvent.get(e.event), e.strings);
    if (e.dwellMs !== null) {
      s.dwellMs += e.dwellMs;
      s.logDwellSum += Math.log1p(Math.max(0, e.dwellMs) / 1000);
      s.dwellCount++;
    }
    addAveragedSignals(s, e);

    const sessions = e.sessionId === null ? derivedSessions : clientSessions;
    const sessionId = sessionOf(e.occurredAt, e.sessionId);
    let session = sessions.get(sessionId);
    if (session) session.end = e.occurredAt;
    else sessions.set(sessionId, (session = { start: e.occurredAt, end: e.occurredAt }));

    if (session !== currentSession) currentScreen = null;
    currentSession = session;
    if (e.screen !== null) {
      currentScreen = normalisedScreenOf(e.screen);
      distinctScreens.add(currentScreen);
      s.views30d++;
    }
    const screenIndex = currentScreen === null ? undefined : plan.screens.get(currentScreen);
    if (screenIndex !== undefined) addToScreen(s.screens[screenIndex], e, age, e.screen !== null);
  }

  for (const sessions of [clientSessions, derivedSessions]) {
    for (const session of sessions.values()) {
      if (cutoff - session.start <= LAST_WEEK_MS) s.sessions7d++;
      const week = Math.ceil((cutoff - session.start) / LAST_WEEK_MS) - 1;
      if (week < TREND_WEEKS) s.weeklySessions[week]++;
      s.sessionMs += session.end - session.start;
    }
  }
  s.sessions = clientSessions.size + derivedSessions.size;
  s.distinctEvents = distinctEvents.size;
  s.distinctScreens = distinctScreens.size;
  return s;
}

/** Counts the event in the weekly rhythm: on a weekend, or within working hours (UTC). */
function addRhythm(s: WindowSummary, at: number): void {
  const day = Math.floor(at / DAY_MS);
  const weekday = (((day + EPOCH_WEEKDAY) % 7) + 7) % 7;
  if (weekday === 0 || weekday === 6) {
    s.weekendEvents++;
    return;
  }
  const hour = Math.floor((at - day * DAY_MS) / HOUR_MS);
  if (hour >= WORK_START_HOUR && hour < WORK_END_HOUR) s.workingHoursEvents++;
}

function addProperties(totals: PropertyTotals[], tracked: ReadonlyArray<{ key: string; index: number }> | undefined, numbers: Record<string, number>): void {
  if (tracked === undefined) return;
  for (const { key, index } of tracked) {
    const value = Object.hasOwn(numbers, key) ? numbers[key] : undefined;
    if (typeof value !== 'number') continue;
    // Each value bounded before summing: opposite extremes cancel instead of making Infinity - Infinity.
    totals[index].sum += bounded(value);
    totals[index].count++;
  }
}

function addValues(s: WindowSummary, tracked: readonly TrackedKey[] | undefined, strings: Record<string, string>): void {
  if (tracked === undefined) return;
  for (const { key, pair, values } of tracked) {
    const value = Object.hasOwn(strings, key) ? strings[key] : undefined;
    if (typeof value !== 'string') continue;
    s.latestValues[pair] = value;
    const index = values.get(value);
    if (index !== undefined) s.valueCounts[index]++;
  }
}

/** A view counts on its own screen; dwell, hesitation and scroll depth count on the screen they happened on. */
function addToScreen(screen: ScreenTotals, e: FeatureEvent, age: number, isView: boolean): void {
  const lastWeek = age <= LAST_WEEK_MS;
  if (isView) {
    screen.views30d++;
    if (lastWeek) screen.views7d++;
  }
  if (e.dwellMs !== null) {
    screen.dwellMs30d += e.dwellMs;
    if (lastWeek) screen.dwellMs7d += e.dwellMs;
  }
  addAveragedSignals(screen, e);
}

function addAveragedSignals(totals: AveragedSignals, e: FeatureEvent): void {
  if (e.hesitationMs !== null) {
    totals.hesitationSum += e.hesitationMs;
    totals.hesitationCount++;
  }
  if (e.scrollDepth !== null) {
    totals.scrollSum += e.scrollDepth;
    totals.scrollCount++;
  }
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
  const window = windowAt(history, cutoff, firstSeenAt);
  return window && computeFeatures(window.events, window.activity, cutoff, manifest);
}

/** featuresAt for each of several manifests, from one pass (computeFeaturesOfEach); undefined as featuresAt answers it. */
export function featuresOfEachAt(history: readonly FeatureEvent[], cutoff: number, manifests: readonly FeatureManifest[], firstSeenAt = history[0]?.occurredAt): Float32Array[] | undefined {
  const window = windowAt(history, cutoff, firstSeenAt);
  return window && computeFeaturesOfEach(window.events, window.activity, cutoff, manifests);
}

/** The 30-day window before `cutoff` of a sorted history, with first and last seen; undefined without an event before the cutoff. */
function windowAt(history: readonly FeatureEvent[], cutoff: number, firstSeenAt: number): { events: readonly FeatureEvent[]; activity: Activity } | undefined {
  const end = firstIndexAtOrAfter(history, cutoff);
  if (end === 0) return undefined;
  const start = firstIndexAtOrAfter(history, cutoff - FEATURE_WINDOW_DAYS * DAY_MS);
  return { events: history.slice(start, end), activity: { firstSeenAt: Math.min(firstSeenAt, history[0].occurredAt), lastSeenAt: history[end - 1].occurredAt } };
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
