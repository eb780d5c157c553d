import type { MonitoringFigures } from '../api/types';
import type { DriftReading } from './quality-grade';

/**
 * The drift block with whether a PSI was measured at all and on how many predictions (`state`,
 * `sampleSize`, `minimumSample`), optional until every API this dashboard talks to reports them.
 */
type ReportedDrift = MonitoringFigures['drift'] & { state?: 'not_run' | 'insufficient_data' | 'measured'; sampleSize?: number; minimumSample?: number };

/** What monitoring last measured of a model's drift, read from its current figures. */
export function driftReading(figures: MonitoringFigures): DriftReading {
  const drift = figures.drift as ReportedDrift;
  if (drift.state === 'not_run' || (drift.state === undefined && figures.window.driftComputedAt === null)) return { measured: 'never' };
  if (drift.state === 'insufficient_data' || figures.psi === null) {
    return { measured: 'too_few', sample: drift.sampleSize ?? figures.window.predictions24h, minimum: drift.minimumSample ?? null };
  }
  return { measured: 'yes', status: drift.status };
}
