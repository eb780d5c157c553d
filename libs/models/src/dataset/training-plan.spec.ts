import { DAY_MS } from '@foresight/platform';
import { cutoffStepDays, isValidationUser, planTraining, TARGET_TRAINING_ROWS, VALIDATION_USER_SHARE } from './training-plan';
import { planUserSample } from './user-sample';

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
  it('reads every user up to the limit, and beyond it the share that reads about the limit (which users: test/integration/training-users)', () => {
    expect(planUserSample(5000, 200_000)).toEqual({ users: 5000, sampledUsers: 5000, rate: 1 });
    expect(planUserSample(1_000_000, 100_000)).toEqual({ users: 1_000_000, sampledUsers: 100_000, rate: 0.1 });
  });
});
