/** Postgres's bigint, the type of serial ids. */
const BIGINT_MAX = 9_223_372_036_854_775_807n;

/**
 * The instants the API accepts: years 0001 to 9999 UTC. Postgres's timestamptz holds far more, but
 * has no year 0 (JavaScript's year 0 is 1 BC), and four-digit years are what ISO 8601 callers write.
 */
const EARLIEST_MS = Date.parse('0001-01-01T00:00:00.000Z');
const LATEST_MS = Date.parse('9999-12-31T23:59:59.999Z');

/** Decimal digits naming a bigint (1 to 9223372036854775807, or 0). */
export function isBigintText(text: string): boolean {
  return /^\d{1,19}$/.test(text) && BigInt(text) <= BIGINT_MAX;
}

/** A valid Date within the years 0001 to 9999 UTC, so Postgres stores and compares it as given. */
export function isStorableInstant(date: Date): boolean {
  const time = date.getTime();
  return time >= EARLIEST_MS && time <= LATEST_MS;
}

/**
 * An ISO 8601 UTC text (`YYYY-MM-DD`, or with `THH:MM:SS[.fraction]Z`) naming an instant that exists
 * exactly as written: JavaScript turns 30 February into 2 March and 24:00 into the next day; Postgres
 * refuses both. Fractions beyond milliseconds are not compared.
 */
export function isExactUtcInstant(text: string): boolean {
  const date = new Date(text);
  if (!isStorableInstant(date)) return false;
  const iso = date.toISOString();
  const [day, time] = text.split('T');
  if (time === undefined) return iso.slice(0, 10) === day;
  const written = `${day}T${time.replace(/Z$/, '')}`;
  const millis = /\.\d+$/.test(written) ? written.replace(/(\.\d{1,3})\d*$/, (_, ms: string) => ms.padEnd(4, '0')) : `${written}.000`;
  return iso.slice(0, 23) === millis;
}

/** The SQLSTATE of an error Postgres raised, however TypeORM wrapped it; undefined for anything else. */
export function postgresErrorCode(error: unknown): string | undefined {
  const wrapped = (error as { driverError?: unknown } | undefined)?.driverError;
  // TypeORM wraps failed queries; a bare pg DatabaseError carries a severity, unlike socket errors (EPIPE…).
  const { code, severity } = (wrapped ?? error ?? {}) as { code?: unknown; severity?: unknown };
  if (wrapped === undefined && typeof severity !== 'string') return undefined;
  return typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) ? code : undefined;
}

/**
 * SQLSTATE classes of a statement refusing the rows it was given: 22 data exception (a value the
 * type cannot hold), 23 integrity constraint violation, 54 program limit exceeded (an index row too
 * large). Not a lost connection or an unavailable server: writing the same rows again may succeed.
 */
const ROW_REFUSAL_CLASSES = new Set(['22', '23', '54']);

/** True when Postgres refused a write for the rows' own content, so writing them again cannot help. */
export function isRowRefusal(error: unknown): boolean {
  return ROW_REFUSAL_CLASSES.has(postgresErrorCode(error)?.slice(0, 2) ?? '');
}
