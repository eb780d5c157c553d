import type { EventVolume } from '../../api/types';
import type { TimeSeries } from '../../charts/time-series-chart';
import { bucketGrid } from './bucket-grid';

/** The most frequent names get their own band; the rest are summed into "other". */
const NAMED_EVENTS = 6;

/**
 * Every bucket of the window (empty ones as 0) and one series per frequent event name; `partialFrom`
 * (unix seconds) is where the line into the unfinished last bucket starts, or null when it is complete.
 */
export function volumeSeries(volume: EventVolume): { times: number[]; series: TimeSeries[]; users: TimeSeries; partialFrom: number | null } {
  const { times, index, lastIsPartial } = bucketGrid(volume.bucket, volume.since, volume.until);
  const named = volume.totals.slice(0, NAMED_EVENTS).map((total) => total.event);
  const other = times.map(() => 0);
  const rows = new Map<string, number[]>([...named.map((name): [string, number[]] => [name, times.map(() => 0)]), ['other', other]]);
  for (const point of volume.series) {
    const k = index.get(Date.parse(point.start));
    if (k === undefined) continue;
    (rows.get(point.event) ?? other)[k] += point.count;
  }
  const series = [...rows].filter(([, values]) => values.some((v) => v > 0)).map(([name, values]) => ({ name, values }));
  const userValues = times.map(() => 0);
  for (const point of volume.activeUsers) {
    const k = index.get(Date.parse(point.start));
    if (k !== undefined) userValues[k] = point.users;
  }
  const partialFrom = lastIsPartial && times.length > 1 ? times[times.length - 2] / 1000 : null;
  return { times: times.map((t) => t / 1000), series, users: { name: 'active users', values: userValues }, partialFrom };
}
