/** Names and order of a model version's inputs; stored with the version so serving builds the same vector. */
export interface FeatureManifest {
  /**
   * 1: event counts and session totals; 2 adds screens, trends, active days and the target's history;
   * 3 adds days since each tracked event, weekly trends over four weeks, robust dwell and weekly rhythm,
   * and keeps only the features chosen on the training rows (narrowManifest).
   */
  version: 1 | 2 | 3;
  /** Event names counted per window (chosen at training time: the candidates, narrowed to those the chosen features read). */
  trackedEvents: string[];
  /** Normalised screens/pages (normaliseScreen) described one by one; absent in version 1. */
  trackedScreens?: string[];
  /** Numeric custom properties summed and averaged per event (`property_*_30d:<event>/<key>`); absent before they existed. */
  trackedProperties?: NumericProperty[];
  /** Values of string properties counted per event (`value_count_30d:<event>/<key>=<value>`); absent before version 3. */
  trackedValues?: StringValue[];
  /** The event the model predicts, whose own history is a feature; absent in version 1. */
  targetEvent?: string;
  names: string[];
  /** How the training matrix was drawn (written after the run has read the data); absent in version 1. */
  trainedOn?: TrainingDraw;
}

/** The users and cutoffs a version's training matrix came from. */
export interface TrainingDraw {
  /** Users with an event before the run. */
  users: number;
  /** Users whose rows were read: all, or a sample when the organization is larger than the training limit. */
  sampledUsers: number;
  /** Days between training cutoffs: 1 when data is small, up to 7. */
  cutoffStepDays: number;
}

/** A numeric custom property as sent with one event name, e.g. `items` of `add_to_cart`. */
export interface NumericProperty {
  event: string;
  key: string;
}

/** How a numeric property is named in feature names. */
export const numericPropertyLabel = (property: NumericProperty) => `${property.event}/${property.key}`;

/** One value of a string custom property as sent with one event name, e.g. `plan` = `pro` of `feature_used`. */
export interface StringValue {
  event: string;
  key: string;
  value: string;
}

/** How a string property's value is named in feature names. */
export const stringValueLabel = (value: StringValue) => `${value.event}/${value.key}=${value.value}`;

/** What training chose from the organization's own data. */
export interface FeatureChoice {
  trackedEvents: readonly string[];
  trackedScreens: readonly string[];
  /** The most frequent numeric properties of the tracked events. */
  trackedProperties: readonly NumericProperty[];
  /** The most frequent values of the low-cardinality string properties of the tracked events. */
  trackedValues: readonly StringValue[];
  /** Absent for a model of no particular event (inactivity): no target features then. */
  targetEvent?: string;
  /** Whether any event of the organization carries the signal; features of an absent signal would be constant. */
  signals: { dwell: boolean; hesitation: boolean; scrollDepth: boolean };
}

export const COUNT_WINDOWS_DAYS = [1, 7, 30] as const;

/** Per tracked event: how often in each window, and how long ago it last happened. */
export const eventFeatureNames = (event: string) => [...COUNT_WINDOWS_DAYS.map((days) => `count_${days}d:${event}`), `days_since:${event}`];

/** The weeks the weekly trends span, newest first. */
export const TREND_WEEKS = 4;

export function buildManifest(choice: FeatureChoice): FeatureManifest {
  const { signals } = choice;
  const trackedEvents = [...new Set(choice.targetEvent === undefined ? choice.trackedEvents : [...choice.trackedEvents, choice.targetEvent])].sort();
  const names = trackedEvents.flatMap(eventFeatureNames);
  for (const screen of choice.trackedScreens) {
    names.push(`screen_views_7d:${screen}`, `screen_views_30d:${screen}`, `screen_view_share_30d:${screen}`);
    if (signals.dwell) names.push(`screen_dwell_seconds_7d:${screen}`, `screen_dwell_seconds_30d:${screen}`);
    if (signals.hesitation) names.push(`screen_mean_hesitation_ms_30d:${screen}`);
    if (signals.scrollDepth) names.push(`screen_mean_scroll_depth_30d:${screen}`);
  }
  // Two properties whose labels collide (an event or key holding "/") would make one feature name twice: the first is kept.
  const byLabel = new Map<string, NumericProperty>();
  for (const { event, key } of choice.trackedProperties) {
    const label = numericPropertyLabel({ event, key });
    if (!byLabel.has(label)) byLabel.set(label, { event, key });
  }
  for (const label of byLabel.keys()) names.push(`property_sum_30d:${label}`, `property_mean_30d:${label}`);
  const trackedProperties = [...byLabel.values()];
  // As properties: two values spelling one label (a key holding "=" or "/") keep the first.
  const valuesByLabel = new Map<string, StringValue>();
  for (const { event, key, value } of choice.trackedValues) {
    const label = stringValueLabel({ event, key, value });
    if (!valuesByLabel.has(label)) valuesByLabel.set(label, { event, key, value });
  }
  for (const label of valuesByLabel.keys()) names.push(`value_count_30d:${label}`, `value_is_latest:${label}`);
  const trackedValues = [...valuesByLabel.values()];
  names.push(
    ...COUNT_WINDOWS_DAYS.map((days) => `events_${days}d`),
    'events_8_to_14d',
    'events_trend_7d',
    'active_days_7d',
    'active_days_30d',
    'sessions_7d',
    'sessions_30d',
    'mean_session_seconds_30d',
    'events_per_session_30d',
    'screen_views_30d',
    'distinct_screens_30d',
    'distinct_events_30d',
    'days_since_last_event',
    'days_since_first_event',
    'events_15_to_21d',
    'events_22_to_28d',
    'events_weekly_slope',
    'active_days_weekly_slope',
    'sessions_weekly_slope',
    'weekend_event_share_30d',
    'working_hours_event_share_30d',
  );
  if (choice.targetEvent !== undefined) names.push('days_since_target_event');
  if (signals.dwell) names.push('total_dwell_seconds_30d', 'mean_view_dwell_seconds_30d', 'mean_log_view_dwell_seconds_30d');
  if (signals.hesitation) names.push('mean_hesitation_ms_30d');
  if (signals.scrollDepth) names.push('mean_scroll_depth_30d');
  const manifest: FeatureManifest = { version: 3, trackedEvents, trackedScreens: [...choice.trackedScreens], trackedProperties, trackedValues, names };
  if (choice.targetEvent !== undefined) manifest.targetEvent = choice.targetEvent;
  return manifest;
}

/**
 * The manifest with only the features `keep` names (in the manifest's order), and only the events,
 * screens and properties those features read: what serving then loads and computes is the chosen set.
 */
export function narrowManifest(manifest: FeatureManifest, keep: ReadonlySet<string>): FeatureManifest {
  const names = manifest.names.filter((name) => keep.has(name));
  const subjects = new Set(names.flatMap((name) => (name.includes(':') ? [name.slice(name.indexOf(':') + 1)] : [])));
  return {
    ...manifest,
    trackedEvents: manifest.trackedEvents.filter((event) => subjects.has(event)),
    trackedScreens: (manifest.trackedScreens ?? []).filter((screen) => subjects.has(screen)),
    trackedProperties: (manifest.trackedProperties ?? []).filter((property) => subjects.has(numericPropertyLabel(property))),
    trackedValues: (manifest.trackedValues ?? []).filter((value) => subjects.has(stringValueLabel(value))),
    names,
  };
}
