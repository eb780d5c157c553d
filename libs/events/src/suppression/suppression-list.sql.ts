import { sqlStatement } from '@foresight/platform';

export const SUPPRESS_IDS = sqlStatement<never, [organizationId: string, idHashes: string[], userHash: string]>(
  'events.suppress-ids',
  `INSERT INTO suppressed_users (organization_id, id_hash, user_hash) SELECT $1, id_hash, $3 FROM unnest($2::text[]) AS id_hash ON CONFLICT DO NOTHING`,
);

/** $2: the userHash of each stored form of the user's id. */
export const UNSUPPRESS_USER = sqlStatement<never, [organizationId: string, userHashes: string[]]>(
  'events.unsuppress-user',
  `DELETE FROM suppressed_users WHERE organization_id = $1 AND user_hash = ANY($2::text[])`,
);

export const SUPPRESSED_IDS = sqlStatement<{ id_hash: string }, [organizationId: string]>(
  'events.suppressed-ids',
  `SELECT id_hash FROM suppressed_users WHERE organization_id = $1`,
);
