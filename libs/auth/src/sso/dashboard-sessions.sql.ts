import { sqlStatement } from '@foresight/platform';
import type { Role } from '../tokens/scopes';

export interface DashboardSessionRow {
  organization_id: string;
  id: string;
  subject: string;
  email: string | null;
  name: string | null;
  role: Role;
  provider_tokens: string;
  last_seen_at: Date;
  refreshed_at: Date;
  expires_at: Date;
  rate_limit_per_minute: number;
  burst_per_minute: number;
}

export const INSERT_DASHBOARD_SESSION = sqlStatement<
  never,
  [organizationId: string, id: string, secretHash: Buffer, subject: string, email: string | null, name: string | null, role: Role, providerTokens: string, maxAgeMs: number]
>(
  'auth.insert-dashboard-session',
  `INSERT INTO dashboard_sessions (organization_id, id, secret_hash, subject, email, name, role, provider_tokens, expires_at)
   VALUES ($1, $2, $3, $4, $5, $6, $7, $8, now() + make_interval(secs => $9 / 1000.0))`,
);

/** Found by the secret's hash alone (the cookie names no organization), on the primary: an ended session must not live on a lagging replica. */
export const DASHBOARD_SESSION_BY_SECRET_HASH = sqlStatement<DashboardSessionRow, [secretHash: Buffer]>(
  'auth.dashboard-session-by-secret-hash',
  `SELECT s.organization_id, s.id, s.subject, s.email, s.name, s.role, s.provider_tokens, s.last_seen_at, s.refreshed_at, s.expires_at,
          o.rate_limit_per_minute, o.burst_per_minute
     FROM dashboard_sessions s
     JOIN organizations o ON o.id = s.organization_id
    WHERE s.secret_hash = $1`,
);

/** At most once per $3 seconds per session, so a busy dashboard costs few writes. */
export const TOUCH_DASHBOARD_SESSION = sqlStatement<never, [organizationId: string, id: string, resolutionSeconds: number]>(
  'auth.touch-dashboard-session',
  `UPDATE dashboard_sessions SET last_seen_at = now()
    WHERE organization_id = $1 AND id = $2 AND last_seen_at <= now() - make_interval(secs => $3)`,
);

/** One request claims a due refresh; the others see no row and go on with the session as it is. */
export const CLAIM_DASHBOARD_SESSION_REFRESH = sqlStatement<{ id: string }, [organizationId: string, id: string, intervalMs: number]>(
  'auth.claim-dashboard-session-refresh',
  `UPDATE dashboard_sessions SET refreshed_at = now()
    WHERE organization_id = $1 AND id = $2 AND refreshed_at <= now() - make_interval(secs => $3 / 1000.0)
    RETURNING id`,
);

export const REFRESH_DASHBOARD_SESSION = sqlStatement<never, [organizationId: string, id: string, role: Role, email: string | null, name: string | null, providerTokens: string]>(
  'auth.refresh-dashboard-session',
  `UPDATE dashboard_sessions SET role = $3, email = $4, name = $5, provider_tokens = $6 WHERE organization_id = $1 AND id = $2`,
);

export const DELETE_DASHBOARD_SESSION = sqlStatement<{ provider_tokens: string }, [organizationId: string, id: string]>(
  'auth.delete-dashboard-session',
  `DELETE FROM dashboard_sessions WHERE organization_id = $1 AND id = $2 RETURNING provider_tokens`,
);

/** The organization's sessions past either lifetime, swept at each sign-in into it. */
export const DELETE_ENDED_DASHBOARD_SESSIONS = sqlStatement<never, [organizationId: string, idleMs: number]>(
  'auth.delete-ended-dashboard-sessions',
  `DELETE FROM dashboard_sessions
    WHERE organization_id = $1 AND (expires_at <= now() OR last_seen_at <= now() - make_interval(secs => $2 / 1000.0))`,
);
