import { validationCurves } from '@foresight/models';
import { validationQuality } from './audience-rule';

describe('validation quality at an audience rule', () => {
  // Ten validation users: scores are P(positive); the first four did the target event.
  const labels = [1, 1, 1, 1, 0, 0, 0, 0, 0, 0];
  const scores = [0.95, 0.81, 0.61, 0.31, 0.71, 0.41, 0.21, 0.11, 0.05, 0.01];
  const curves = validationCurves(labels, scores);

  it('holds the users above a minConfidence of the positive label', () => {
    // Above 0.6: three positives and one negative.
    expect(validationQuality(curves, true, { minConfidence: 0.6 })).toEqual({ cutoff: 0.6, share: 0.4, precision: 0.75, recall: 0.75 });
  });

  it('holds the users below one minus a minConfidence of the negative label, counting non-events as having the label', () => {
    // P(negative) >= 0.7 is P(positive) <= 0.3: four negatives, no positive; six negatives in all.
    const quality = validationQuality(curves, false, { minConfidence: 0.7 });
    expect(quality?.cutoff).toBeCloseTo(0.7, 10);
    expect(quality).toMatchObject({ share: 0.4, precision: 1, recall: 4 / 6 });
  });

  it('takes the nearest stored cutoff (steps of 0.02)', () => {
    expect(validationQuality(curves, true, { minConfidence: 0.605 })?.cutoff).toBe(0.6);
    expect(validationQuality(curves, true, { minConfidence: 0.615 })?.cutoff).toBeCloseTo(0.62, 10);
  });

  it('for topPercent, takes the cutoff whose share is nearest to the percent', () => {
    // The top 20%: the two highest scores, both positive.
    expect(validationQuality(curves, true, { topPercent: 20 })).toMatchObject({ share: 0.2, precision: 1, recall: 0.5 });
    // The 30% least likely to do it: three negatives.
    expect(validationQuality(curves, false, { topPercent: 30 })).toMatchObject({ share: 0.3, precision: 1, recall: 0.5 });
  });

  it('answers null precision when the audience holds nobody, and null without curves', () => {
    expect(validationQuality(curves, true, { minConfidence: 1 })).toMatchObject({ share: 0, precision: null, recall: 0 });
    expect(validationQuality(null, true, { topPercent: 10 })).toBeNull();
  });
});
