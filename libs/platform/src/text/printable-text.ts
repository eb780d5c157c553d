import { z } from 'zod';

/** C0 and C1 control characters (NUL included) and UTF-16 halves without their pair (not Unicode text). */
const NOT_PRINTABLE = /[\p{Cc}\p{Cs}]/u;

/**
 * An id, name or label a caller sends (user, session, message, event, model label, organization name):
 * 1 to `max` characters of printable Unicode, wherever it comes in. A lone surrogate has no UTF-8 form,
 * so Postgres would keep U+FFFD: two different ids would become one, and one id would reach another's data.
 * The length is checked first and stops the checks after it (abort), so the pattern never runs on an over-long string.
 */
export const printableText = (max: number) =>
  z
    .string()
    .min(1)
    .max(max, { abort: true })
    .refine((value) => !NOT_PRINTABLE.test(value), 'no control characters or unpaired surrogates');
