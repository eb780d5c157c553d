import { CronExpressionParser } from 'cron-parser';
import { z } from 'zod';

/** A cron expression BullMQ's job schedulers accept (five fields, or six with seconds). */
export function cronExpression(example: string) {
  return z.string().refine((cron) => {
    try {
      CronExpressionParser.parse(cron);
      return true;
    } catch {
      return false;
    }
  }, `a cron expression, e.g. "${example}"`);
}
