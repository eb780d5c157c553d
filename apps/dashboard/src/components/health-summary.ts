import type { DayHealth } from '../api/types';

const WORDS: Record<DayHealth['health'], string> = { healthy: 'healthy', degraded: 'degraded', failing: 'failing', no_data: 'no data' };

/** "12 healthy, 1 degraded, 1 no data": what the strip shows, for screen readers and tooltips. */
export function healthSummary(days: DayHealth[]): string {
  const counts = new Map<string, number>();
  for (const { health } of days) counts.set(WORDS[health], (counts.get(WORDS[health]) ?? 0) + 1);
  return [...counts].map(([word, n]) => `${n} ${word}`).join(', ');
}
