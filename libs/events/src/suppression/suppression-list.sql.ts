import { sqlStatement } from '@foresight/platform';

export const SUPPRESS_IDS = sqlStatement<never, [organizationId: string, idHashes: string[], userHash: string]>(
  'events.suppress-ids',
  `INSERT INTO suppressed_users (organization_id, id_hash, user_hash) SELECT $1, id_hash, $3 FROM unnest($2::text[]) AS id_hash ON CONFLICT DO NOTHING`,
);

export const UNSUPPRESS_USER = sqlStatement<never, [organizationId: string, userHash: string]>(
  'events.unsuppress-user',
  `DELETE FROM suppressed_users WHERE organization_id = $1 AND user_hash = $2`,
);

export const SUPPRESSED_IDS = sqlStatement<{ id_hash: string }, [organizationId: string]>(
  'events.suppressed-ids',
  `SELECT id_hash FROM suppressed_users WHERE organization_id = $1`,
);
