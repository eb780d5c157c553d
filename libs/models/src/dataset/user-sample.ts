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

/** Bounds a run's cost: beyond `maxUsers`, that share of users is read. */
export function planUserSample(users: number, maxUsers: number): UserSample {
  if (users <= maxUsers) return { users, sampledUsers: users, rate: 1 };
  return { users, sampledUsers: maxUsers, rate: maxUsers / users };
}

/**
 * The users a sampled run reads, stratified by class: of the users who did the target event in the
 * window and of those who did not, the same share `rate` exactly (rounded), so the target's prevalence,
 * and with it the calibrated probabilities, stay the population's whatever the draw. Within a class,
 * the users with the lowest stable per-user coin are kept: the same data gives the same sample, and
 * whole users are kept or dropped (their rows at every cutoff together).
 */
export function stratifiedUsers<User extends string>(users: readonly User[], didTarget: ReadonlySet<string>, rate: number): User[] {
  if (rate >= 1) return [...users];
  const classes: [User[], User[]] = [[], []];
  for (const user of users) classes[didTarget.has(user) ? 1 : 0].push(user);
  return classes.flatMap((members) => {
    const coins = new Map(members.map((user) => [user, userCoin(user, 'training-sample')]));
    return members.sort((a, b) => (coins.get(a) as number) - (coins.get(b) as number)).slice(0, Math.round(rate * members.length));
  });
}
