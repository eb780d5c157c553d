import { InvalidTrainingSetError } from './training.errors';
import { countClasses } from './training-set';

/**
 * Weight of each positive example relative to a negative one (scale_pos_weight).
 * `'balanced'` gives both classes the same total weight, so a rare target event still
 * shapes the splits; the probability distortion that causes is undone by calibration.
 */
export type PositiveWeight = number | 'balanced';

export function resolvePositiveWeight(labels: Uint8Array, option: PositiveWeight): number {
  const { positives, negatives } = countClasses(labels);
  if (positives === 0 || negatives === 0) {
    throw new InvalidTrainingSetError(
      `training needs both classes; found ${positives} positive, ${negatives} negative`,
    );
  }
  if (option === 'balanced') return negatives / positives;
  if (!(option > 0) || !Number.isFinite(option)) {
    throw new RangeError(`positiveWeight must be a positive number or 'balanced'; got ${option}`);
  }
  return option;
}
