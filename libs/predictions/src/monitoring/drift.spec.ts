import { CONFIDENCE_BIN_EDGES, confidenceHistogram } from '@foresight/models';
import { type BucketCount, compareWithBaseline, driftClimbed, driftState, driftStatus, MIN_DRIFT_SAMPLE } from './drift';

/** What SQL's width_bucket(confidence, 0.5, 1, 10) groups, computed here from raw confidences. */
function buckets(confidences: number[]): BucketCount[] {
  const byBucket = new Map<number, BucketCount>();
  for (const c of confidences) {
    const bucket = Math.floor((c - 0.5) / 0.05) + 1;
    const entry = byBucket.get(bucket) ?? { bucket, count: 0, sum: 0 };
    entry.count++;
    entry.sum += c;
    byBucket.set(bucket, entry);
  }
  return [...byBucket.values()];
}

const spread = (n: number, from: number, to: number) => Array.from({ length: n }, (_, i) => from + ((to - from) * (i + 0.5)) / n);

describe('drift against the validation baseline', () => {
  const baseline = confidenceHistogram(spread(1000, 0.5, 1));

  it('maps PSI to the drift statuses', () => {
    expect([null, 0, 0.099, 0.1, 0.199, 0.2, 0.299, 0.3, 2].map(driftStatus)).toEqual(['none', 'none', 'none', 'low', 'low', 'moderate', 'moderate', 'high', 'high']);
  });

  it('finds no drift when live confidences follow the baseline', () => {
    const drift = compareWithBaseline(buckets(spread(500, 0.5, 1)), baseline);
    expect(drift.status).toBe('none');
    expect(drift.psi).toBeLessThan(0.01);
    expect(drift.delta).toBeCloseTo(0, 3);
  });

  it('finds high drift with a negative delta when confidences collapse towards 0.5', () => {
    const drift = compareWithBaseline(buckets(spread(500, 0.5, 0.6)), baseline);
    expect(drift.status).toBe('high');
    expect(drift.delta).toBeCloseTo(0.55 - 0.75, 2);
    expect(drift.meanConfidence).toBeCloseTo(0.55, 2);
  });

  it('counts a confidence of exactly 1 in the last bin, as the baseline does', () => {
    const drift = compareWithBaseline(buckets(Array(MIN_DRIFT_SAMPLE).fill(1)), confidenceHistogram(Array(10).fill(1)));
    expect(drift.psi).toBeCloseTo(0, 6);
    expect(CONFIDENCE_BIN_EDGES[CONFIDENCE_BIN_EDGES.length - 1]).toBe(1);
  });

  it('withholds PSI below the minimum sample', () => {
    expect(compareWithBaseline(buckets(spread(MIN_DRIFT_SAMPLE - 1, 0.5, 0.6)), baseline)).toMatchObject({ psi: null, status: 'none' });
    expect(compareWithBaseline([], baseline)).toEqual({ predictions: 0, meanConfidence: null, delta: 0, psi: null, status: 'none' });
  });

  it('at the minimum sample, reads a population that did not change as no drift at least 99 times in 100', () => {
    // A weak model's baseline (most confidences near 0.5, thin upper bins): small samples leave its
    // thin bins empty, the worst case for PSI's noise.
    const shares = [40, 25, 15, 8, 5, 3, 2, 1, 0.6, 0.4];
    const weak = confidenceHistogram(shares.flatMap((share, bin) => Array<number>(share * 10).fill(0.5 + 0.05 * bin + 0.025)));
    let state = 20261128;
    const random = () => (state = (Math.imul(state, 1_103_515_245) + 12_345) >>> 0) / 2 ** 32;
    const draw = () => {
      let u = random() * 100;
      let bin = 0;
      while (bin < shares.length - 1 && u >= shares[bin]) u -= shares[bin++];
      return 0.5 + 0.05 * bin + 0.025;
    };
    const trials = 1000;
    let drifting = 0;
    for (let t = 0; t < trials; t++) {
      if (compareWithBaseline(buckets(Array.from({ length: MIN_DRIFT_SAMPLE }, draw)), weak).status !== 'none') drifting++;
    }
    expect(drifting / trials).toBeLessThan(0.01);
  });

  it('says whether drift was measured: not before a run, not below the minimum sample', () => {
    expect([undefined, 0, MIN_DRIFT_SAMPLE - 1, MIN_DRIFT_SAMPLE].map(driftState)).toEqual(['not_run', 'insufficient_data', 'insufficient_data', 'measured']);
  });

  it('announces only a climb to moderate or high', () => {
    expect(driftClimbed(undefined, 'moderate')).toBe(true);
    expect(driftClimbed('low', 'high')).toBe(true);
    expect(driftClimbed('moderate', 'high')).toBe(true);
    expect(driftClimbed('high', 'high')).toBe(false);
    expect(driftClimbed('high', 'moderate')).toBe(false);
    expect(driftClimbed('none', 'low')).toBe(false);
  });
});
