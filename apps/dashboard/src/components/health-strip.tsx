import type { DayHealth } from '../api/types';
import { healthSummary } from './health-summary';
import type { Health } from './quality-grade';
import { Badge } from './states';

/** The two-week health badge: one square per UTC day, oldest first, coloured by the day's worst monitoring run. */
export function HealthStrip({ days }: { days: DayHealth[] }) {
  if (days.length === 0) return null;
  const label = `Health over the last ${days.length} days: ${healthSummary(days)}`;
  return (
    <span className="health-strip" role="img" aria-label={label} title={label}>
      {days.map(({ day, health }) => (
        <span key={day} className={`day ${health}`} data-day={day} data-health={health} />
      ))}
    </span>
  );
}

/** A model's health in a word, and why when the word alone does not say ("not enough predictions yet (40 of 100)"). */
export function HealthBadge({ health }: { health: Health }) {
  return (
    <>
      <Badge tone={health.tone}>{health.label}</Badge>
      {health.detail && <span className="muted"> {health.detail}</span>}
    </>
  );
}
