import { ingestionTotals, rejectedSeries } from './ingestion-summary';

const stats = {
  bucket: 'hour' as const,
  since: '2026-11-26T10:00:00.000Z',
  until: '2026-11-26T13:00:00.000Z',
  series: [
    { start: '2026-11-26T10:00:00.000Z', library: 'direct', accepted: 5, duplicates: 1, rejected: 0 },
    { start: '2026-11-26T10:00:00.000Z', library: 'analytics.js', accepted: 2, duplicates: 0, rejected: 3 },
    { start: '2026-11-26T12:00:00.000Z', library: 'direct', accepted: 1, duplicates: 0, rejected: 4 },
  ],
};

describe('ingestion summary', () => {
  it('sums each library over the window, the most rejected first', () => {
    expect(ingestionTotals(stats)).toEqual([
      { library: 'direct', accepted: 6, duplicates: 1, rejected: 4 },
      { library: 'analytics.js', accepted: 2, duplicates: 0, rejected: 3 },
    ]);
  });

  it('spreads rejections over every bucket of the window, zero where none', () => {
    const { times, series } = rejectedSeries(stats);
    expect(times).toEqual([10, 11, 12].map((h) => Date.parse(`2026-11-26T${h}:00:00.000Z`) / 1000));
    expect(series).toEqual([
      { name: 'analytics.js', values: [3, 0, 0] },
      { name: 'direct', values: [0, 0, 4] },
    ]);
  });
});
