import { volumeSeries } from './volume-series';

const volume = (until: string) => ({
  bucket: 'day' as const,
  since: '2026-11-25T00:00:00.000Z',
  until,
  totals: [{ event: 'opened', count: 7 }],
  series: [
    { start: '2026-11-25T00:00:00.000Z', event: 'opened', count: 5 },
    { start: '2026-11-27T00:00:00.000Z', event: 'opened', count: 2 },
  ],
  activeUsers: [{ start: '2026-11-27T00:00:00.000Z', users: 1 }],
});

describe('volumeSeries', () => {
  it('marks the unfinished current day from the line into it, and keeps its count so far', () => {
    const drawn = volumeSeries(volume('2026-11-27T09:30:00.000Z'));
    expect(drawn.times).toEqual(['25', '26', '27'].map((d) => Date.parse(`2026-11-${d}T00:00:00.000Z`) / 1000));
    expect(drawn.series).toEqual([{ name: 'opened', values: [5, 0, 2] }]);
    expect(drawn.partialFrom).toBe(Date.parse('2026-11-26T00:00:00.000Z') / 1000);
  });

  it('marks nothing when the window ends on a bucket boundary', () => {
    expect(volumeSeries(volume('2026-11-28T00:00:00.000Z')).partialFrom).toBeNull();
  });
});
