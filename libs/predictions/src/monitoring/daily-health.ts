import { DAY_MS } from '@foresight/platform';

/** A model's health on one UTC day, from that day's monitoring snapshots: the worst of them. */
export type DayHealth = 'healthy' | 'degraded' | 'failing' | 'no_data';

/** How many days the health badge covers. */
export const HEALTH_DAYS = 14;

/** Severity as the SQL computes it per snapshot: -1 judged nothing (too few predictions, no live accuracy), 0 healthy, 1 degraded, 2 failing. */
const BY_SEVERITY: DayHealth[] = ['healthy', 'degraded', 'failing'];

export interface HealthRow {
  modelId: string;
  day: Date;
  severity: number;
}

/**
 * Each model's last `HEALTH_DAYS` UTC days, oldest first, ending today; a day without a snapshot
 * (the job did not run, or the model did not serve), or whose snapshots all judged nothing, is
 * `no_data`: never `healthy` without evidence.
 */
export function healthDays(rows: HealthRow[], modelIds: string[], now: Date): Map<string, Array<{ day: string; health: DayHealth }>> {
  const today = now.getTime() - (now.getTime() % DAY_MS);
  const days = Array.from({ length: HEALTH_DAYS }, (_, k) => today - (HEALTH_DAYS - 1 - k) * DAY_MS);
  const worst = new Map<string, number>(rows.map((row) => [`${row.modelId}@${row.day.getTime()}`, row.severity]));
  return new Map(
    modelIds.map((modelId) => [
      modelId,
      days.map((day) => {
        const severity = worst.get(`${modelId}@${day}`);
        return { day: new Date(day).toISOString().slice(0, 10), health: severity === undefined || severity < 0 ? 'no_data' : (BY_SEVERITY[severity] ?? 'failing') };
      }),
    ]),
  );
}
