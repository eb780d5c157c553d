/** Features that describe the whole window, in words. */
const WINDOW_LABELS = new Map<string, string>(
  Object.entries({
    events_1d: 'events, last day',
    events_7d: 'events, last 7 days',
    events_30d: 'events, last 30 days',
    events_8_to_14d: 'events 8 to 14 days ago',
    events_15_to_21d: 'events 15 to 21 days ago',
    events_22_to_28d: 'events 22 to 28 days ago',
    events_trend_7d: 'change in events, last 7 days against the 7 before',
    events_weekly_slope: 'weekly change in events over the last 4 weeks',
    active_days_weekly_slope: 'weekly change in days active over the last 4 weeks',
    sessions_weekly_slope: 'weekly change in sessions over the last 4 weeks',
    weekend_event_share_30d: 'share of events on weekends, last 30 days',
    working_hours_event_share_30d: 'share of events on weekdays 08:00-18:00 UTC, last 30 days',
    active_days_7d: 'days active, last 7 days',
    active_days_30d: 'days active, last 30 days',
    sessions_7d: 'sessions, last 7 days',
    sessions_30d: 'sessions, last 30 days',
    mean_session_seconds_30d: 'mean session length in seconds, last 30 days',
    events_per_session_30d: 'events per session, last 30 days',
    screen_views_30d: 'screen views, last 30 days',
    distinct_screens_30d: 'different screens viewed, last 30 days',
    distinct_events_30d: 'different events sent, last 30 days',
    total_dwell_seconds_30d: 'seconds spent on screens, last 30 days',
    mean_view_dwell_seconds_30d: 'mean seconds per screen view, last 30 days',
    mean_log_view_dwell_seconds_30d: 'typical seconds per screen view (mean of logs), last 30 days',
    mean_hesitation_ms_30d: 'mean hesitation in milliseconds, last 30 days',
    mean_scroll_depth_30d: 'mean scroll depth, last 30 days',
    days_since_last_event: 'days since the last event',
    days_since_first_event: 'days since the first event',
    days_since_target_event: 'days since the predicted event last happened',
  }),
);

/** Families of features about one event, screen or numeric property (`<family>:<subject>`), in words. */
const FAMILY_LABELS = new Map<string, (subject: string) => string>(
  Object.entries({
    count_1d: (event: string) => `"${event}" events, last day`,
    count_7d: (event: string) => `"${event}" events, last 7 days`,
    count_30d: (event: string) => `"${event}" events, last 30 days`,
    days_since: (event: string) => `days since the last "${event}" event`,
    screen_views_7d: (screen: string) => `views of ${screen}, last 7 days`,
    screen_views_30d: (screen: string) => `views of ${screen}, last 30 days`,
    screen_view_share_30d: (screen: string) => `share of screen views on ${screen}, last 30 days`,
    screen_dwell_seconds_7d: (screen: string) => `seconds spent on ${screen}, last 7 days`,
    screen_dwell_seconds_30d: (screen: string) => `seconds spent on ${screen}, last 30 days`,
    screen_mean_hesitation_ms_30d: (screen: string) => `mean hesitation on ${screen} in milliseconds, last 30 days`,
    screen_mean_scroll_depth_30d: (screen: string) => `mean scroll depth on ${screen}, last 30 days`,
    property_sum_30d: (property: string) => `total of ${property} (event/property), last 30 days`,
    property_mean_30d: (property: string) => `mean of ${property} (event/property), last 30 days`,
    value_count_30d: (value: string) => `events sending ${value} (event/property=value), last 30 days`,
    value_is_latest: (value: string) => `latest event sent ${value} (event/property=value)`,
  }),
);

/**
 * A feature id in words, e.g. "share of screen views on /pricing, last 30 days", for every id the
 * feature definitions produce (feature-manifest.ts names them). An id no definition produces is
 * answered as it is.
 */
export function featureLabel(feature: string): string {
  const window = WINDOW_LABELS.get(feature);
  if (window !== undefined) return window;
  const separator = feature.indexOf(':');
  const family = separator < 0 ? undefined : FAMILY_LABELS.get(feature.slice(0, separator));
  return family === undefined ? feature : family(feature.slice(separator + 1));
}
