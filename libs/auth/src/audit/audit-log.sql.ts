import { sqlStatement } from '@foresight/platform';
import type { AuditedAction } from './audited-actions';

export interface AuditRow {
  id: string;
  organization_id: string;
  actor_token_id: string | null;
  actor_subject: string | null;
  actor_email: string | null;
  actor_name: string | null;
  action: AuditedAction;
  target: string | null;
  created_at: Date;
}

export const INSERT_AUDIT_ENTRY = sqlStatement<
  never,
  [id: string, organizationId: string, actorTokenId: string | null, subject: string | null, email: string | null, name: string | null, action: AuditedAction, target: string | null]
>(
  'auth.insert-audit-entry',
  `INSERT INTO audit_log (id, organization_id, actor_token_id, actor_subject, actor_email, actor_name, action, target) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
);

/** Newest first; $3 (an action), $4 (since, inclusive) and $5 (until, exclusive) narrow it when not null. */
export const AUDIT_ENTRIES = sqlStatement<AuditRow, [organizationId: string, limit: number, action: AuditedAction | null, since: string | null, until: string | null]>(
  'auth.audit-entries',
  `SELECT * FROM audit_log
    WHERE organization_id = $1 AND ($3::text IS NULL OR action = $3)
      AND created_at >= coalesce($4::timestamptz, '-infinity') AND created_at < coalesce($5::timestamptz, 'infinity')
    ORDER BY created_at DESC, id DESC LIMIT $2`,
);
