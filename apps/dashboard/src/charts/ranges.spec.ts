import { MIN_TIME_SPAN_S, timeRange, valueRange } from './ranges';

describe('chart ranges', () => {
  const monday = Date.parse('2026-11-23T12:00:00Z') / 1000;

  it('gives one point a time axis of two hours around it, not years', () => {
    expect(timeRange(monday, monday)).toEqual([monday - MIN_TIME_SPAN_S / 2, monday + MIN_TIME_SPAN_S / 2]);
  });

  it('centres points seconds apart in a two-hour axis', () => {
    const [from, to] = timeRange(monday, monday + 30);
    expect(to - from).toBe(MIN_TIME_SPAN_S);
    expect(from).toBeLessThan(monday);
    expect(to).toBeGreaterThan(monday + 30);
  });

  it('pads thirty days of points a little on each side', () => {
    const [from, to] = timeRange(monday, monday + 30 * 86_400);
    expect(from).toBeLessThan(monday);
    expect(from).toBeGreaterThan(monday - 86_400);
    expect(to).toBeGreaterThan(monday + 30 * 86_400);
    expect(to).toBeLessThan(monday + 31 * 86_400);
  });

  it('starts positive values at 0 and keeps what must be covered (every drift band) in view', () => {
    expect(valueRange(0.05, 0.05, [0, 0.35])[0]).toBe(0);
    expect(valueRange(0.05, 0.05, [0, 0.35])[1]).toBeGreaterThan(0.35);
    expect(valueRange(0.2, 0.9)[0]).toBe(0);
    expect(valueRange(0.5, 1.4, [0, 0.35])[1]).toBeGreaterThan(1.4);
  });

  it('draws a lone value or a flat line inside the plot, and gives a negative value room below', () => {
    const [from, to] = valueRange(3, 3);
    expect(from).toBe(0);
    expect(to).toBeGreaterThan(3);
    expect(valueRange(0, 0)).toEqual([0, 1]);
    expect(valueRange(-2, -2)[0]).toBeLessThan(-2);
    expect(valueRange(-2, -2)[1]).toBeGreaterThanOrEqual(0);
    expect(valueRange(-0.04, 0.02)[0]).toBeLessThan(-0.04);
  });
});
