import { DAY_MS } from '@foresight/platform';

/** The models' defaults: a 90-day window of cutoffs, those of the latest two weeks held out. */
export const TRAINING_WINDOW_DAYS = 90;
/** The held-out period: its cutoffs come at the training step (two weekly ones, or fourteen daily ones). */
export const HOLDOUT_DAYS = 14;
export const MAX_STEP_DAYS = 7;
export const VALIDATION_USER_SHARE = 0.3;
/**
 * Training rows aimed at when choosing how often to cut: a small organization is cut daily (more
 * rows from the same users), a large one weekly, which is plenty and keeps the matrix bounded.
 */
export const TARGET_TRAINING_ROWS = 250_000;

export interface TrainingPlan {
  /** Cutoffs used for training rows, oldest first (epoch ms). */
  trainCutoffs: number[];
  /**
   * The latest cutoffs (the last HOLDOUT_DAYS, at the training step), for the time-based holdout:
   * validation users' rows there calibrate and measure, the other users' rows there tune.
   */
  validationCutoffs: number[];
  /** Days between training cutoffs: 1 (daily) to 7 (weekly). */
  cutoffStepDays: number;
  horizonMs: number;
  windowStart: number;
  windowEnd: number;
}

/** Days between training cutoffs for an organization of `users` users: daily when data is small, at most weekly. */
export function cutoffStepDays(users: number, windowDays = TRAINING_WINDOW_DAYS): number {
  return Math.min(MAX_STEP_DAYS, Math.max(1, Math.ceil((users * windowDays) / TARGET_TRAINING_ROWS)));
}

/**
 * Holdout cutoffs step back every `stepDays` over HOLDOUT_DAYS from `now - horizon` (so every label's
 * horizon has passed): daily cutoffs give a small organization's calibration and metrics seven times
 * the rows of weekly ones. Training cutoffs continue back from the oldest of them to the start of the window.
 */
export function planTraining(now: number, horizonDays: number, stepDays = MAX_STEP_DAYS, windowDays = TRAINING_WINDOW_DAYS): TrainingPlan {
  const horizonMs = horizonDays * DAY_MS;
  const windowStart = now - windowDays * DAY_MS;
  const validationCutoffs: number[] = [];
  for (let k = 0; k * stepDays < HOLDOUT_DAYS; k++) {
    const cutoff = now - horizonMs - k * stepDays * DAY_MS;
    if (cutoff >= windowStart) validationCutoffs.unshift(cutoff);
  }
  const trainCutoffs: number[] = [];
  for (let cutoff = validationCutoffs[0] - stepDays * DAY_MS; cutoff >= windowStart; cutoff -= stepDays * DAY_MS) trainCutoffs.unshift(cutoff);
  return { trainCutoffs, validationCutoffs, cutoffStepDays: stepDays, horizonMs, windowStart, windowEnd: now };
}

/** A stable per-user coin in [0, 1): the same user always gets the same value for the same purpose. */
export function userCoin(userId: string, purpose: string): number {
  let hash = 2_166_136_261;
  const key = `${purpose}|${userId}`;
  for (let i = 0; i < key.length; i++) hash = Math.imul(hash ^ key.charCodeAt(i), 16_777_619);
  // FNV-1a alone mixes its last bytes poorly, so coins of different purposes would be correlated;
  // MurmurHash3's finalizer spreads every input bit over the whole value.
  hash = Math.imul(hash ^ (hash >>> 16), 0x85eb_ca6b);
  hash = Math.imul(hash ^ (hash >>> 13), 0xc2b2_ae35);
  hash ^= hash >>> 16;
  return (hash >>> 0) / 2 ** 32;
}

/** The same user is always on the same side of the split (no leakage). */
export function isValidationUser(userId: string): boolean {
  return userCoin(userId, 'validation') < VALIDATION_USER_SHARE;
}
