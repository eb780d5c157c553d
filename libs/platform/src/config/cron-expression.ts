import { CronExpressionParser } from 'cron-parser';
import { z } from 'zod';

const fieldsOf = (cron: string) => cron.trim().split(/\s+/);

/**
 * True for a five-field cron expression (minute hour day-of-month month day-of-week) that parses.
 * Five fields cannot fire more than once a minute; a seconds field (six fields), a year field or an
 * alias such as `@every 1s` is refused (a schedule fires at most once a minute).
 */
export function isMinuteCron(cron: string): boolean {
  if (fieldsOf(cron).length !== 5) return false;
  try {
    CronExpressionParser.parse(cron, { tz: 'UTC' });
    return true;
  } catch {
    return false;
  }
}

/** The one validator of schedules: model schedules (POST and PATCH /v1/models) and MONITORING_SCHEDULE. */
export function cronExpression(example: string) {
  return z.string().refine(isMinuteCron, `a five-field cron expression (minute hour day-of-month month day-of-week), at most once a minute, e.g. "${example}"`);
}

/**
 * The pattern to register with the job scheduler for a stored schedule, which may predate the
 * five-field rule: a six-field pattern loses its seconds field, so it fires at most once a minute
 * (`*\/2 * * * * *` becomes `* * * * *`). Null when nothing valid remains (the schedule is not registered).
 */
export function minuteSchedule(stored: string): string | null {
  const fields = fieldsOf(stored);
  const candidate = fields.length === 6 ? fields.slice(1).join(' ') : fields.join(' ');
  return isMinuteCron(candidate) ? candidate : null;
}
