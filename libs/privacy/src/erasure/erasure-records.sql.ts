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

/** $4: the user's id as sent, sealed as the sweep job carries it, kept until the sweep confirms (RECORD_ERASURE_PASS clears it). */
export const OPEN_ERASURE = sqlStatement<never, [id: string, organizationId: string, userHash: string, userIdSealed: string]>(
  'privacy.open-erasure',
  `INSERT INTO erasures (id, organization_id, user_hash, user_id_sealed) VALUES ($1, $2, $3, $4)`,
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
          confirmed_at = CASE WHEN $5 THEN now() ELSE confirmed_at END,
          user_id_sealed = CASE WHEN $5 THEN NULL ELSE user_id_sealed END
    WHERE id = $1 AND organization_id = $2`,
);

/** Newest first; $2 (the userHash of each stored form of a user's id) narrows to one user's requests when not null. */
export const ERASURES = sqlStatement<ErasureRow, [organizationId: string, userHashes: string[] | null, limit: number]>(
  'privacy.erasures',
  `SELECT * FROM erasures WHERE organization_id = $1 AND ($2::text[] IS NULL OR user_hash = ANY($2::text[]))
    ORDER BY requested_at DESC, id DESC LIMIT $3`,
);

/**
 * Every organization's erasures not confirmed $1 seconds after they were asked, oldest first, at
 * most $2: those whose sweep job Redis may have lost (PrivacyService.resumeSweeps). Records from
 * before the sealed id was kept have none, and are left to the job Redis holds.
 */
export const UNCONFIRMED_ERASURES = sqlStatement<{ id: string; organization_id: string; user_id_sealed: string }, [olderThanSeconds: number, limit: number]>(
  'privacy.unconfirmed-erasures',
  `SELECT id, organization_id, user_id_sealed FROM erasures
    WHERE status = 'pending' AND user_id_sealed IS NOT NULL AND requested_at < now() - make_interval(secs => $1)
    ORDER BY requested_at LIMIT $2`,
);
