import type { MonitoringFigures } from '../api/types';
import type { DriftReading } from './quality-grade';

/**
 * The API's drift on a sample too small to mean anything: `insufficient_data`, with the sample and the
 * minimum it needs. Read beside the generated type until the API's document declares it.
 */
type ReportedDrift = Omit<MonitoringFigures['drift'], 'status'> & { status: MonitoringFigures['drift']['status'] | 'insufficient_data'; sampleSize?: number; minimumSample?: number };

/** What monitoring last measured of a model's drift, read from its current figures. */
export function driftReading(figures: MonitoringFigures): DriftReading {
  if (figures.window.driftComputedAt === null) return { measured: 'never' };
  const drift = figures.drift as ReportedDrift;
  if (drift.status === 'insufficient_data' || figures.psi === null) {
    return { measured: 'too_few', sample: drift.sampleSize ?? figures.window.predictions24h, minimum: drift.minimumSample ?? null };
  }
  return { measured: 'yes', status: drift.status };
}
