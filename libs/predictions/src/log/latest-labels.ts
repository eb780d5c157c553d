import type { DataSource } from 'typeorm';
import type { StoredUserId } from '@foresight/events';

/**
 * The label of each user's latest logged prediction of each model, keyed by previousLabelKey: one
 * step back along predictions_user_model_idx per user, model and partition, however long the log of
 * each user has grown. A user a model never predicted for has no entry.
 */
export async function readLatestLabels(
  database: Pick<DataSource, 'query'>,
  organizationId: string,
  users: readonly StoredUserId[],
  modelIds: readonly string[],
): Promise<Map<string, string>> {
  const rows = await database.query<Array<{ user_id: string; model_id: string; label: string }>>(
    `SELECT u.user_id, m.model_id, p.label
       FROM unnest($2::text[]) AS u(user_id) CROSS JOIN unnest($3::text[]) AS m(model_id)
      CROSS JOIN LATERAL (
            SELECT label FROM predictions
             WHERE organization_id = $1 AND user_id = u.user_id AND model_id = m.model_id
             ORDER BY predicted_at DESC, id DESC LIMIT 1) p`,
    [organizationId, users, modelIds],
  );
  return new Map(rows.map((row) => [previousLabelKey(row.user_id, row.model_id), row.label]));
}

/**
 * The new labels that differ from the user's previous latest label of the same model; a user the
 * model never predicted for has no previous label and so no change (as after new events).
 */
export function labelChanges<T extends { user: StoredUserId; modelId: string; label: string }>(
  scored: readonly T[],
  previous: ReadonlyMap<string, string>,
): Array<T & { previousLabel: string }> {
  return scored.flatMap((row) => {
    const before = previous.get(previousLabelKey(row.user, row.modelId));
    return before !== undefined && before !== row.label ? [{ ...row, previousLabel: before }] : [];
  });
}

/** The key of `labelChanges`'s map of previous labels. */
export function previousLabelKey(user: string, modelId: string): string {
  return `${modelId}\u0000${user}`;
}
