import { postgresErrorCode } from './postgres-values';

/** deadlock_detected and serialization_failure: Postgres aborted the transaction so another could proceed. */
const CONFLICT_CODES = new Set(['40P01', '40001']);

/**
 * Runs a whole transaction again when Postgres aborted it for a conflict with another one. Only for
 * work that is all-or-nothing (one transaction) and safe to repeat; any other error is thrown at once.
 */
export async function retriedOnConflict<T>(transaction: () => Promise<T>, attempts = 3): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await transaction();
    } catch (error) {
      const code = postgresErrorCode(error);
      if (attempt >= attempts || code === undefined || !CONFLICT_CODES.has(code)) throw error;
    }
  }
}
