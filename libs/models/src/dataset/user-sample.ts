import { userCoin } from './training-plan';

/** How many of an organization's users a training run reads. */
export interface UserSample {
  /** Users with an event before the run. */
  users: number;
  /** Users read: all of them, or about `maxUsers`. */
  sampledUsers: number;
  /** Share of users read, 0 to 1. */
  rate: number;
}

/**
 * Bounds a run's cost: beyond `maxUsers`, a fixed share of users is read, chosen by a stable per-user
 * coin. Whole users are kept or dropped (their rows at every cutoff together), so the target's
 * prevalence, and with it the calibrated probabilities, stay the population's.
 */
export function planUserSample(users: number, maxUsers: number): UserSample {
  if (users <= maxUsers) return { users, sampledUsers: users, rate: 1 };
  return { users, sampledUsers: maxUsers, rate: maxUsers / users };
}

export function keepsUser(sample: UserSample, userId: string): boolean {
  return sample.rate >= 1 || userCoin(userId, 'training-sample') < sample.rate;
}
