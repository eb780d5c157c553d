import { createRandom } from '@foresight/platform';
import { mutualInformation, selectFeatures } from './feature-selection';

describe('feature selection', () => {
  const rows = 4000;
  const random = createRandom(7);
  const labels = Uint8Array.from({ length: rows }, () => (random() < 0.2 ? 1 : 0));

  it('measures about nothing in a feature independent of the label, and the label entropy in a copy of it', () => {
    const noise = Float32Array.from({ length: rows }, () => random());
    const copy = Float32Array.from(labels);
    const p = labels.reduce((sum, label) => sum + label, 0) / rows;
    // Less the bias correction, (bins - 1) / 2n: about 0 for noise in 16 bins, the entropy less 1 / 2n for a copy in 2.
    expect(Math.abs(mutualInformation(noise, labels))).toBeLessThan(0.002);
    expect(mutualInformation(copy, labels)).toBeCloseTo(-p * Math.log(p) - (1 - p) * Math.log(1 - p) - 1 / (2 * rows), 6);
    expect(mutualInformation(new Float32Array(rows), labels)).toBe(0);
  });

  it('keeps a rare event that precedes the outcome over frequent features that say nothing, and the required ones', () => {
    const names = ['events_30d', 'count_30d:screen_view', 'days_since_last_event', 'count_30d:payment_failed', 'sessions_30d'];
    const features = new Float32Array(rows * names.length);
    for (let i = 0; i < rows; i++) {
      const row = [random() * 100, random() * 60, random() * 30, labels[i] === 1 && random() < 0.3 ? 1 : 0, random() * 10];
      features.set(row, i * names.length);
    }
    const chosen = selectFeatures({ features, labels, featureNames: names }, 2, ['days_since_last_event']);
    expect([...chosen].sort()).toEqual(['count_30d:payment_failed', 'days_since_last_event']);
  });
});
