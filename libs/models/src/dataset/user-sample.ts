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
 * Bounds a run's cost: beyond `maxUsers`, that share of users is read (which ones: the database
 * chooses them, TrainingEvents.trainingUsers).
 */
export function planUserSample(users: number, maxUsers: number): UserSample {
  if (users <= maxUsers) return { users, sampledUsers: users, rate: 1 };
  return { users, sampledUsers: maxUsers, rate: maxUsers / users };
}

