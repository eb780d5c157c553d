/**
 * Fields that hold values rather than describe the fault: TypeORM's statement and parameters (user
 * ids, session ids, ciphertext of every organization in a group commit), the driver error they
 * wrap, and Postgres's `detail` (`Key (user_id)=(alice)`), `where` (the JSON around a bad value),
 * `hint` and `internalQuery`. Never logged; the SQLSTATE `code`, `constraint`, `table`, `column`
 * and `routine` name the fault without them.
 */
const VALUE_FIELDS = new Set(['parameters', 'query', 'driverError', 'detail', 'where', 'hint', 'internalQuery', 'position', 'internalPosition']);
/** Errors carry causes and aggregated errors; deeper than this is not worth a log line. */
const MAX_NESTING = 3;

/**
 * pino's `err` serializer: type, message, stack and the error's own fields, minus VALUE_FIELDS at
 * every level. A database error's message quotes the refused value (`invalid input syntax for type
 * integer: "alice"`, `"1e-320" is out of range`), so in its message and stack everything from the
 * first to the last double quote is replaced.
 */
export function serializeError(value: unknown, nesting = 0): unknown {
  if (typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) return nesting < MAX_NESTING ? value.map((item) => serializeError(item, nesting + 1)) : '[…]';
  const fields = value as Record<string, unknown>;
  const scrub = isDatabaseError(fields) ? withoutQuotedValues : (text: string) => text;
  const serialized: Record<string, unknown> = {};
  if (value instanceof Error) {
    serialized.type = value.constructor?.name ?? value.name;
    serialized.message = scrub(value.message);
    serialized.stack = value.stack === undefined ? undefined : scrub(value.stack);
  }
  for (const [key, field] of Object.entries(fields)) {
    if (VALUE_FIELDS.has(key) || key in serialized) continue;
    if (typeof field === 'string') serialized[key] = scrub(field);
    else if (typeof field !== 'object' || field === null) serialized[key] = field;
    else if (nesting < MAX_NESTING) serialized[key] = serializeError(field, nesting + 1);
  }
  if (value instanceof Error && value.cause !== undefined && nesting < MAX_NESTING) serialized.cause = serializeError(value.cause, nesting + 1);
  return serialized;
}

/** A TypeORM QueryFailedError, or a pg DatabaseError (a five-character SQLSTATE and a severity). */
function isDatabaseError(error: Record<string, unknown>): boolean {
  return 'driverError' in error || (typeof error.code === 'string' && /^[0-9A-Z]{5}$/.test(error.code) && 'severity' in error);
}

/** Linear: one greedy run from the first quote, backtracking once to the last. */
function withoutQuotedValues(text: string): string {
  return text.replace(/"[\s\S]*"/, '"[redacted]"');
}
