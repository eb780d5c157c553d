import { monthsAround } from './monthly-partitions.service';

describe('monthsAround', () => {
  it('names UTC calendar months across a year boundary', () => {
    const months = monthsAround('events', new Date('2026-12-31T23:30:00-02:00'), 1, 2); // already 2027-01-01 in UTC
    expect(months).toEqual([
      { name: 'events_2026_12', from: '2026-12-01T00:00:00.000Z', to: '2027-01-01T00:00:00.000Z' },
      { name: 'events_2027_01', from: '2027-01-01T00:00:00.000Z', to: '2027-02-01T00:00:00.000Z' },
      { name: 'events_2027_02', from: '2027-02-01T00:00:00.000Z', to: '2027-03-01T00:00:00.000Z' },
      { name: 'events_2027_03', from: '2027-03-01T00:00:00.000Z', to: '2027-04-01T00:00:00.000Z' },
    ]);
  });

  it('prefixes partitions with their table', () => {
    expect(monthsAround('predictions', new Date('2026-11-22T00:00:00Z'), 0, 0).map((m) => m.name)).toEqual(['predictions_2026_11']);
  });
});
