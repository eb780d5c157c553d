import { DAY_MS } from '@foresight/platform';
import { cutoffStepDays, isValidationUser, planTraining, TARGET_TRAINING_ROWS, VALIDATION_USER_SHARE } from './training-plan';
import { planUserSample, stratifiedUsers } from './user-sample';

const now = Date.UTC(2026, 10, 21);

describe('training plan', () => {
  it('cuts daily when data is small and at most weekly when it is large', () => {
    expect(cutoffStepDays(1000)).toBe(1);
    expect(cutoffStepDays(TARGET_TRAINING_ROWS / 90)).toBe(1);
    expect(cutoffStepDays((2 * TARGET_TRAINING_ROWS) / 90)).toBe(2);
    expect(cutoffStepDays(1_000_000)).toBe(7);
  });

  it('holds out the cutoffs of the latest two weeks, at the training step, and trains on cutoffs every step before them', () => {
    const daily = planTraining(now, 7, 1);
    expect(daily.validationCutoffs).toEqual(Array.from({ length: 14 }, (_, k) => now - (20 - k) * DAY_MS));
    expect(daily.trainCutoffs.at(-1)).toBe(now - 21 * DAY_MS);
    expect(daily.trainCutoffs[0]).toBe(now - 90 * DAY_MS);
    expect(daily.trainCutoffs).toHaveLength(70);
    const weekly = planTraining(now, 7, 7);
    expect(weekly.validationCutoffs).toEqual([now - 14 * DAY_MS, now - 7 * DAY_MS]);
    expect(weekly.trainCutoffs).toEqual(Array.from({ length: 10 }, (_, k) => now - (84 - 7 * k) * DAY_MS));
    expect(weekly.cutoffStepDays).toBe(7);
    const everyThirdDay = planTraining(now, 7, 3);
    expect(everyThirdDay.validationCutoffs).toEqual([19, 16, 13, 10, 7].map((days) => now - days * DAY_MS));
  });

  it('puts about 30% of users in validation, each always on the same side', () => {
    const users = Array.from({ length: 20_000 }, (_, i) => `user-${i}`);
    const share = users.filter(isValidationUser).length / users.length;
    expect(Math.abs(share - VALIDATION_USER_SHARE)).toBeLessThan(0.015);
    expect(users.map(isValidationUser)).toEqual(users.map(isValidationUser));
  });
});

describe('user sample', () => {
  const users = Array.from({ length: 50_000 }, (_, i) => `user-${i}`);
  /** 1,254 users did the target event. */
  const didTarget = new Set(users.filter((_, i) => i % 40 === 7 || i < 4));

  it('reads every user up to the limit', () => {
    const sample = planUserSample(5000, 200_000);
    expect(sample).toEqual({ users: 5000, sampledUsers: 5000, rate: 1 });
    expect(stratifiedUsers(users, didTarget, sample.rate)).toEqual(users);
  });

  it('reads exactly the same share of each class, so the target keeps its prevalence', () => {
    const sample = planUserSample(1_000_000, 100_000);
    expect(sample.rate).toBe(0.1);
    expect(didTarget.size).toBe(1254);
    const kept = stratifiedUsers(users, didTarget, sample.rate);
    // round(0.1 * 1,254) = 125 who did it, round(0.1 * 48,746) = 4,875 who did not.
    expect(kept.filter((user) => didTarget.has(user))).toHaveLength(125);
    expect(kept.filter((user) => !didTarget.has(user))).toHaveLength(4875);
    expect(new Set(kept).size).toBe(5000);
    // The same data, the same sample, whatever the order the users came in.
    expect(new Set(stratifiedUsers([...users].reverse(), didTarget, sample.rate))).toEqual(new Set(kept));
    // The sample coin and the validation coin are different coins: the sample keeps the 30/70 split.
    expect(Math.abs(kept.filter(isValidationUser).length / kept.length - VALIDATION_USER_SHARE)).toBeLessThan(0.03);
  });
});
