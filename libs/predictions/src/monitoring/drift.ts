import { CONFIDENCE_BIN_EDGES, type ConfidenceHistogram, populationStabilityIndex } from '@foresight/models';

export type DriftStatus = 'none' | 'low' | 'moderate' | 'high';

/** Fewer confidences than this in the window say nothing about drift: status `none`, no PSI. */
export const MIN_DRIFT_SAMPLE = 100;

/** PSI < 0.1 none, < 0.2 low, < 0.3 moderate, else high. */
export function driftStatus(psi: number | null): DriftStatus {
  if (psi === null || psi < 0.1) return 'none';
  if (psi < 0.2) return 'low';
  if (psi < 0.3) return 'moderate';
  return 'high';
}

const SEVERITY: Record<DriftStatus, number> = { none: 0, low: 1, moderate: 2, high: 3 };

/** A `drift.detected` is announced when the status climbs to moderate or high. */
export function driftClimbed(previous: DriftStatus | undefined, current: DriftStatus): current is 'moderate' | 'high' {
  return SEVERITY[current] >= SEVERITY.moderate && SEVERITY[current] > SEVERITY[previous ?? 'none'];
}

/** Counts per confidence bin as SQL's width_bucket(confidence, 0.5, 1, bins) numbers them (1-based; 1.0 lands past the end). */
export interface BucketCount {
  bucket: number;
  count: number;
  sum: number;
}

export interface Drift {
  predictions: number;
  meanConfidence: number | null;
  delta: number;
  psi: number | null;
  status: DriftStatus;
}

/** The live confidence distribution against the serving version's validation baseline. */
export function compareWithBaseline(buckets: readonly BucketCount[], baseline: ConfidenceHistogram): Drift {
  const bins = CONFIDENCE_BIN_EDGES.length - 1;
  const counts = new Array<number>(bins).fill(0);
  let predictions = 0;
  let sum = 0;
  for (const { bucket, count, sum: bucketSum } of buckets) {
    counts[Math.min(Math.max(bucket, 1), bins) - 1] += count;
    predictions += count;
    sum += bucketSum;
  }
  if (predictions === 0) return { predictions, meanConfidence: null, delta: 0, psi: null, status: 'none' };
  const meanConfidence = sum / predictions;
  const psi = predictions >= MIN_DRIFT_SAMPLE ? populationStabilityIndex(baseline.counts, counts) : null;
  return { predictions, meanConfidence, delta: meanConfidence - baseline.mean, psi, status: driftStatus(psi) };
}
