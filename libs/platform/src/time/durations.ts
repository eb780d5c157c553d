/** Milliseconds in a day: every day-based window (features, retention, horizons, token expiry) counts in these. */
export const DAY_MS = 86_400_000;
