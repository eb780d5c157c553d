import { type DemoUserTruth, oracleProbability } from './demo-oracle';

const truth = (overrides: Partial<DemoUserTruth> = {}): DemoUserTruth => ({
  userId: 'u',
  anonymousId: null,
  identifiedAt: null,
  platform: 'web',
  source: 'sdk',
  joinedAt: '2026-01-01T00:00:00.000Z',
  observedUntil: '2026-03-01T00:00:00.000Z',
  churnedAt: null,
  sessionsPerDay: 0.5,
  perSession: { checkout: 0.1, upgrade: 0.05, churn: 0 },
  latent: { engagement: 0, buyIntent: 0, upgradeIntent: 0 },
  ...overrides,
});
const cutoff = new Date('2026-02-01T00:00:00.000Z');

describe('oracleProbability', () => {
  it('is 1 - exp(-rate · p · days) without churn', () => {
    expect(oracleProbability(truth(), 'checkout', cutoff, 7)).toBeCloseTo(1 - Math.exp(-0.5 * 0.1 * 7), 12);
    expect(oracleProbability(truth(), 'churn', cutoff, 7)).toBe(0);
  });

  it('lowers the chance when the user may churn first (competing risks)', () => {
    const leaving = truth({ perSession: { checkout: 0.1, upgrade: 0.05, churn: 0.2 } });
    const hit = 0.5 * 0.1;
    const leave = 0.5 * 0.9 * 0.2;
    expect(oracleProbability(leaving, 'checkout', cutoff, 7)).toBeCloseTo((hit / (hit + leave)) * (1 - Math.exp(-(hit + leave) * 7)), 12);
    expect(oracleProbability(leaving, 'checkout', cutoff, 7)).toBeLessThan(oracleProbability(truth(), 'checkout', cutoff, 7));
    expect(oracleProbability(leaving, 'churn', cutoff, 7)).toBeCloseTo(1 - Math.exp(-0.5 * 0.2 * 7), 12);
  });

  it('is 0 once the user has churned, and counts only the simulated part of the window', () => {
    expect(oracleProbability(truth({ churnedAt: '2026-01-20T00:00:00.000Z' }), 'checkout', cutoff, 7)).toBe(0);
    expect(oracleProbability(truth({ churnedAt: '2026-02-03T00:00:00.000Z' }), 'checkout', cutoff, 7)).toBeGreaterThan(0);
    const twoDaysLeft = truth({ observedUntil: '2026-02-03T00:00:00.000Z' });
    expect(oracleProbability(twoDaysLeft, 'checkout', cutoff, 7)).toBeCloseTo(1 - Math.exp(-0.5 * 0.1 * 2), 12);
    const joinsLater = truth({ joinedAt: '2026-02-05T00:00:00.000Z' });
    expect(oracleProbability(joinsLater, 'checkout', cutoff, 7)).toBeCloseTo(1 - Math.exp(-0.5 * 0.1 * 3), 12);
    expect(oracleProbability(truth({ joinedAt: '2026-02-10T00:00:00.000Z' }), 'checkout', cutoff, 7)).toBe(0);
  });
});
