/** Axis ranges that stay sensible with one, two or many points (pure, so they are tested beside). */

/** The narrowest time axis, in seconds: one point, or points minutes apart, still get an axis of hours, not years. */
export const MIN_TIME_SPAN_S = 2 * 3600;
/** Room left and right of the first and last points, as a share of the span. */
const TIME_PADDING = 0.03;

/** The x range around points from `min` to `max` (unix seconds). */
export function timeRange(min: number | null, max: number | null): [number, number] {
  if (min === null || max === null || !Number.isFinite(min) || !Number.isFinite(max)) {
    const now = Date.now() / 1000;
    return [now - MIN_TIME_SPAN_S, now];
  }
  const span = max - min;
  if (span < MIN_TIME_SPAN_S) {
    const middle = (min + max) / 2;
    return [middle - MIN_TIME_SPAN_S / 2, middle + MIN_TIME_SPAN_S / 2];
  }
  return [min - span * TIME_PADDING, max + span * TIME_PADDING];
}

/**
 * The y range around values from `min` to `max`, covering `covers` too: from 0 for values that are
 * all positive (all negative: up to 0), with a margin, and [0, 1] when every value is 0.
 */
export function valueRange(min: number | null, max: number | null, covers?: [number, number]): [number, number] {
  let low = Math.min(min ?? 0, covers?.[0] ?? Infinity);
  let high = Math.max(max ?? 0, covers?.[1] ?? -Infinity);
  if (!Number.isFinite(low)) low = 0;
  if (!Number.isFinite(high)) high = 1;
  if (low > 0) low = 0;
  if (high < 0) high = 0;
  if (high === low) return [0, 1];
  const margin = (high - low) * 0.08;
  return [low < 0 ? low - margin : low, high + margin];
}
