import { sqlStatement } from '@foresight/platform';

export type ErasureStatus = 'pending' | 'confirmed';

/** Rows removed per store, summed over the request and every sweep. */
export type ErasedCounts = Record<string, number>;

export interface ErasureRow {
  id: string;
  organization_id: string;
  user_hash: string;
  status: ErasureStatus;
  requested_at: Date;
  confirmed_at: Date | null;
  attempts: number;
  erased: ErasedCounts;
}

export const OPEN_ERASURE = sqlStatement<never, [id: string, organizationId: string, userHash: string]>(
  'privacy.open-erasure',
  `INSERT INTO erasures (id, organization_id, user_hash) VALUES ($1, $2, $3)`,
);

export const DISCARD_ERASURE = sqlStatement<never, [id: string, organizationId: string]>(
  'privacy.discard-erasure',
  `DELETE FROM erasures WHERE id = $1 AND organization_id = $2`,
);

/** Adds a pass's counts ($3, a JSON object) to the record's; $4 sweeps more; $5 true: confirmed. */
export const RECORD_ERASURE_PASS = sqlStatement<never, [id: string, organizationId: string, erased: string, sweeps: number, confirmed: boolean]>(
  'privacy.record-erasure-pass',
  `UPDATE erasures
      SET erased = (SELECT coalesce(jsonb_object_agg(key, total), '{}'::jsonb) FROM (
                      SELECT key, sum(value::bigint) AS total FROM (
                        SELECT * FROM jsonb_each_text(erased) UNION ALL SELECT * FROM jsonb_each_text($3::jsonb)) AS counts
                       GROUP BY key) AS summed),
          attempts = attempts + $4,
          status = CASE WHEN $5 THEN 'confirmed' ELSE status END,
          confirmed_at = CASE WHEN $5 THEN now() ELSE confirmed_at END
    WHERE id = $1 AND organization_id = $2`,
);

/** Newest first; $2 (the userHash of each stored form of a user's id) narrows to one user's requests when not null. */
export const ERASURES = sqlStatement<ErasureRow, [organizationId: string, userHashes: string[] | null, limit: number]>(
  'privacy.erasures',
  `SELECT * FROM erasures WHERE organization_id = $1 AND ($2::text[] IS NULL OR user_hash = ANY($2::text[]))
    ORDER BY requested_at DESC, id DESC LIMIT $3`,
);
