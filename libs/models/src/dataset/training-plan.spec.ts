import { DAY_MS } from '@foresight/platform';
import { cutoffStepDays, isValidationUser, planTraining, TARGET_TRAINING_ROWS, VALIDATION_USER_SHARE } from './training-plan';
import { keepsUser, planUserSample } from './user-sample';

const now = Date.UTC(2026, 10, 21);

describe('training plan', () => {
  it('cuts daily when data is small and at most weekly when it is large', () => {
    expect(cutoffStepDays(1000)).toBe(1);
    expect(cutoffStepDays(TARGET_TRAINING_ROWS / 90)).toBe(1);
    expect(cutoffStepDays((2 * TARGET_TRAINING_ROWS) / 90)).toBe(2);
    expect(cutoffStepDays(1_000_000)).toBe(7);
  });

  it('holds out the two latest weekly cutoffs and trains on cutoffs every step before them', () => {
    const daily = planTraining(now, 7, 1);
    expect(daily.validationCutoffs).toEqual([now - 14 * DAY_MS, now - 7 * DAY_MS]);
    expect(daily.trainCutoffs.at(-1)).toBe(now - 15 * DAY_MS);
    expect(daily.trainCutoffs[0]).toBe(now - 90 * DAY_MS);
    expect(daily.trainCutoffs).toHaveLength(76);
    const weekly = planTraining(now, 7, 7);
    expect(weekly.validationCutoffs).toEqual(daily.validationCutoffs);
    expect(weekly.trainCutoffs).toEqual(Array.from({ length: 10 }, (_, k) => now - (84 - 7 * k) * DAY_MS));
    expect(weekly.cutoffStepDays).toBe(7);
  });

  it('puts about 30% of users in validation, each always on the same side', () => {
    const users = Array.from({ length: 20_000 }, (_, i) => `user-${i}`);
    const share = users.filter(isValidationUser).length / users.length;
    expect(Math.abs(share - VALIDATION_USER_SHARE)).toBeLessThan(0.015);
    expect(users.map(isValidationUser)).toEqual(users.map(isValidationUser));
  });
});

describe('user sample', () => {
  it('reads every user up to the limit', () => {
    const sample = planUserSample(5000, 200_000);
    expect(sample).toEqual({ users: 5000, sampledUsers: 5000, rate: 1 });
    expect(keepsUser(sample, 'anyone')).toBe(true);
  });

  it('reads about `maxUsers` of a larger organization, independently of the validation split', () => {
    const sample = planUserSample(1_000_000, 100_000);
    expect(sample.rate).toBe(0.1);
    const users = Array.from({ length: 50_000 }, (_, i) => `user-${i}`);
    const kept = users.filter((user) => keepsUser(sample, user));
    expect(Math.abs(kept.length / users.length - 0.1)).toBeLessThan(0.01);
    // The sample coin and the validation coin are different coins: the sample keeps the 30/70 split.
    expect(Math.abs(kept.filter(isValidationUser).length / kept.length - VALIDATION_USER_SHARE)).toBeLessThan(0.03);
  });
});
