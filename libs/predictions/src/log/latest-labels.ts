import type { StoredUserId } from '@foresight/events';
import type { SqlRunner } from '@foresight/platform';
import { LATEST_LABELS } from './prediction-log.sql';

/**
 * The label of each user's latest logged prediction of each model (LATEST_LABELS), keyed by
 * previousLabelKey; only predictions made before `before` when given. A user a model never predicted
 * for has no entry. On the primary: the log rows just written (this process's flushed buffer, a run's
 * earlier chunks) must count.
 */
export async function readLatestLabels(
  sql: SqlRunner,
  organizationId: string,
  users: readonly StoredUserId[],
  modelIds: readonly string[],
  before?: Date,
): Promise<Map<string, string>> {
  const rows = await sql.rows(LATEST_LABELS, [organizationId, users, modelIds, before?.toISOString() ?? null]);
  return new Map(rows.map((row) => [previousLabelKey(row.user_id, row.model_id), row.label]));
}

/**
 * The new labels that differ from the user's previous latest label of the same model; a user the
 * model never predicted for has no previous label and so no change (as after new events).
 */
export function labelChanges<T extends { userId: string; modelId: string; label: string }>(
  scored: readonly T[],
  previous: ReadonlyMap<string, string>,
): Array<T & { previousLabel: string }> {
  return scored.flatMap((row) => {
    const before = previous.get(previousLabelKey(row.userId, row.modelId));
    return before !== undefined && before !== row.label ? [{ ...row, previousLabel: before }] : [];
  });
}

/** The key of `labelChanges`'s map of previous labels. */
export function previousLabelKey(user: string, modelId: string): string {
  return `${modelId}\u0000${user}`;
}
