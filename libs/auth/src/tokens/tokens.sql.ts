import { sqlStatement } from '@foresight/platform';
import type { Scope, TokenEnvironment } from './scopes';

export interface TokenRow {
  id: string;
  organization_id: string;
  environment: TokenEnvironment;
  scopes: Scope[];
  expires_at: Date | null;
  revoked_at: Date | null;
  last_used_at: Date | null;
  rate_limit_per_minute: number;
  burst_per_minute: number;
}

export const TOKEN_BY_SECRET_HASH = sqlStatement<TokenRow, [secretHash: Buffer]>(
  'auth.token-by-secret-hash',
  `SELECT t.id, t.organization_id, t.environment, t.scopes, t.expires_at, t.revoked_at, t.last_used_at,
          o.rate_limit_per_minute, o.burst_per_minute
     FROM api_tokens t
     JOIN organizations o ON o.id = t.organization_id
    WHERE t.secret_hash = $1`,
);

/** The condition keeps processes that looked the token up at the same moment from writing twice. */
export const NOTE_TOKEN_USE = sqlStatement<never, [tokenId: string, organizationId: string, resolutionSeconds: number]>(
  'auth.note-token-use',
  `UPDATE api_tokens SET last_used_at = now()
    WHERE id = $1 AND organization_id = $2 AND (last_used_at IS NULL OR last_used_at <= now() - make_interval(secs => $3))`,
);

/** Revoking twice keeps the first time. */
export const REVOKE_TOKEN = sqlStatement<never, [tokenId: string, organizationId: string]>(
  'auth.revoke-token',
  `UPDATE api_tokens SET revoked_at = now() WHERE id = $1 AND organization_id = $2 AND revoked_at IS NULL`,
);
