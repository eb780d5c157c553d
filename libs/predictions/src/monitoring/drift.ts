import { CONFIDENCE_BIN_EDGES, type ConfidenceHistogram, populationStabilityIndex } from '@foresight/models';

export type DriftStatus = 'none' | 'low' | 'moderate' | 'high';

/**
 * Fewer confidences than this in the window say nothing about drift: no PSI, state
 * `insufficient_data`, status `none`, no `drift.detected`. PSI over the 10 confidence bins of a sample
 * of n drawn from the baseline itself (no drift at all) is about chi-square(9) / n, inflated further
 * by bins left empty. Simulated over uniform, confident, weak and two-peaked baselines: at n = 100 it
 * reads moderate or worse 3 to 14% of the time (the 0.231 of issue 43); at n = 300, at least low
 * under 1% and moderate about never. A property of the statistic, not a deployment's preference:
 * lowering it brings the false alarms back, so it is no setting.
 */
export const MIN_DRIFT_SAMPLE = 300;

/** Whether a PSI was measured: not before the first monitoring run, nor on fewer than MIN_DRIFT_SAMPLE predictions. */
export type DriftState = 'not_run' | 'insufficient_data' | 'measured';

/** Whether `predictions` in the window are enough to measure drift on. */
export function driftState(predictions: number | undefined): DriftState {
  if (predictions === undefined) return 'not_run';
  return predictions >= MIN_DRIFT_SAMPLE ? 'measured' : 'insufficient_data';
}

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
