import { cronExpression, isMinuteCron, minuteSchedule } from './cron-expression';

describe('schedules fire at most once a minute', () => {
  const schema = cronExpression('0 3 * * *');

  it.each(['* * * * *', '0 3 * * *', '*/15 9-17 * * 1-5', '7 * * * *', ' 0 0 1 1 * ', '0 12 * * MON'])('accepts the five-field %p', (cron) => {
    expect(isMinuteCron(cron)).toBe(true);
    expect(schema.safeParse(cron).success).toBe(true);
  });

  it.each(['* * * * * *', '*/2 * * * * *', '0 * * * * *', '0 0 3 * * * 2030', '@every 1s', '@hourly', '* * * *', '', 'every day', '61 * * * *', '* 25 * * *'])(
    'refuses %p',
    (cron) => {
      expect(isMinuteCron(cron)).toBe(false);
      const result = schema.safeParse(cron);
      expect(result.success).toBe(false);
      expect(result.error?.issues[0].message).toMatch(/five-field cron expression .* at most once a minute/);
    },
  );

  it('registers a stored schedule that predates the rule at minute granularity', () => {
    expect(minuteSchedule('* * * * * *')).toBe('* * * * *');
    expect(minuteSchedule('*/2 * * * * *')).toBe('* * * * *');
    expect(minuteSchedule('30 */5 * * * *')).toBe('*/5 * * * *');
    expect(minuteSchedule('0 3 * * *')).toBe('0 3 * * *');
    expect(minuteSchedule('@every 1s')).toBeNull();
    expect(minuteSchedule('not a cron')).toBeNull();
  });
});
