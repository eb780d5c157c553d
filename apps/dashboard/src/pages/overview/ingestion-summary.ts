import type { IngestionStats } from '../../api/types';
import type { TimeSeries } from '../../charts/time-series-chart';
import { bucketGrid } from './bucket-grid';

export interface LibraryTotals {
  library: string;
  accepted: number;
  duplicates: number;
  rejected: number;
}

/** Totals per sending library over the window, the most rejected first, then the busiest. */
export function ingestionTotals(stats: IngestionStats): LibraryTotals[] {
  const byLibrary = new Map<string, LibraryTotals>();
  for (const { library, accepted, duplicates, rejected } of stats.series) {
    const totals = byLibrary.get(library) ?? { library, accepted: 0, duplicates: 0, rejected: 0 };
    totals.accepted += accepted;
    totals.duplicates += duplicates;
    totals.rejected += rejected;
    byLibrary.set(library, totals);
  }
  return [...byLibrary.values()].sort((a, b) => b.rejected - a.rejected || b.accepted - a.accepted || a.library.localeCompare(b.library));
}

/** Rejected events per bucket of the window (every bucket, empty ones as 0), one series per library that had any. */
export function rejectedSeries(stats: IngestionStats): { times: number[]; series: TimeSeries[] } {
  const { times, index } = bucketGrid(stats.bucket, stats.since, stats.until);
  const rows = new Map<string, number[]>();
  for (const point of stats.series) {
    const k = index.get(Date.parse(point.start));
    if (k === undefined || point.rejected === 0) continue;
    const values = rows.get(point.library) ?? times.map(() => 0);
    values[k] += point.rejected;
    rows.set(point.library, values);
  }
  return { times: times.map((t) => t / 1000), series: [...rows].map(([name, values]) => ({ name, values })) };
}
