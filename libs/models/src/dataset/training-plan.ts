import { DAY_MS } from '@foresight/platform';

/** The models' defaults: a 90-day window of weekly cutoffs, the latest held out. */
export const TRAINING_WINDOW_DAYS = 90;
export const CUTOFF_STEP_DAYS = 7;
export const VALIDATION_CUTOFFS = 2;
export const VALIDATION_USER_SHARE = 0.3;
/** Users count at a cutoff only if they were active in the days before it. */
export const ACTIVE_DAYS = 30;

export interface TrainingPlan {
  /** Cutoffs used for training rows, oldest first (epoch ms). */
  trainCutoffs: number[];
  /** The latest cutoffs, for the time-based holdout. */
  validationCutoffs: number[];
  horizonMs: number;
  windowStart: number;
  windowEnd: number;
}

/** Cutoffs step back weekly from `now - horizon` (so every label's horizon has passed) over the window. */
export function planTraining(now: number, horizonDays: number): TrainingPlan {
  const horizonMs = horizonDays * DAY_MS;
  const cutoffs: number[] = [];
  for (let cutoff = now - horizonMs; cutoff >= now - TRAINING_WINDOW_DAYS * DAY_MS; cutoff -= CUTOFF_STEP_DAYS * DAY_MS) cutoffs.unshift(cutoff);
  const split = Math.max(1, cutoffs.length - VALIDATION_CUTOFFS);
  return {
    trainCutoffs: cutoffs.slice(0, split),
    validationCutoffs: cutoffs.slice(split),
    horizonMs,
    windowStart: now - TRAINING_WINDOW_DAYS * DAY_MS,
    windowEnd: now,
  };
}

/** A stable per-user coin: the same user is always on the same side of the split (no leakage). */
export function isValidationUser(userId: string): boolean {
  let hash = 2_166_136_261;
  for (let i = 0; i < userId.length; i++) hash = Math.imul(hash ^ userId.charCodeAt(i), 16_777_619);
  return (hash >>> 0) / 2 ** 32 < VALIDATION_USER_SHARE;
}
