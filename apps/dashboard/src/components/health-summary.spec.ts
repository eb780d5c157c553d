import { healthSummary } from './health-summary';

describe('healthSummary', () => {
  it('counts the days of each health in the order they first appear', () => {
    const days = [
      { day: '2026-11-24', health: 'no_data' as const },
      { day: '2026-11-25', health: 'healthy' as const },
      { day: '2026-11-26', health: 'failing' as const },
      { day: '2026-11-27', health: 'healthy' as const },
    ];
    expect(healthSummary(days)).toBe('1 no data, 2 healthy, 1 failing');
  });
});
