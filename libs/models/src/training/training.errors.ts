/** Minimum examples of each class in the training part of a split. */
export const MIN_TRAINING_EXAMPLES_PER_CLASS = 50;

/**
 * Minimum examples of each class in the validation part. Calibration, AUC and the
 * drift baseline are all estimated there, so a handful of positives would produce
 * numbers that look precise and mean nothing.
 */
export const MIN_VALIDATION_EXAMPLES_PER_CLASS = 10;

export type SplitPart = 'train' | 'tuning' | 'validation';

export class InsufficientTrainingDataError extends Error {
  readonly code = 'insufficient_training_data';

  constructor(
    readonly part: SplitPart,
    readonly positives: number,
    readonly negatives: number,
    readonly minimumPerClass: number,
  ) {
    const where = part === 'train' ? 'training' : part;
    super(
      `needs at least ${minimumPerClass} positive and ${minimumPerClass} negative ${where} examples; ` +
        `found ${positives} positive, ${negatives} negative`,
    );
    this.name = 'InsufficientTrainingDataError';
  }
}

/** The caller handed over arrays whose sizes or contents do not describe a data set. */
export class InvalidTrainingSetError extends Error {
  readonly code = 'invalid_training_set';

  constructor(message: string) {
    super(message);
    this.name = 'InvalidTrainingSetError';
  }
}
