import { Injectable } from '@nestjs/common';
import { newId, SqlExecutor } from '@foresight/platform';
import { AUDIT_ENTRIES, INSERT_AUDIT_ENTRY } from './audit-log.sql';
import type { AuditedAction } from './audited-actions';

export interface AuditEntry {
  id: string;
  organizationId: string;
  /** The token that acted; null for operators at the CLI. */
  actorTokenId: string | null;
  action: AuditedAction;
  /** What was acted on: a token or model id, or `user:<keyed hash>` (never a user id in clear). */
  target: string | null;
  createdAt: string;
}

export interface AuditFilter {
  action?: AuditedAction;
  since?: Date;
  until?: Date;
}

/** Append-only record of admin actions; on the primary (an admin reads the log right after acting). */
@Injectable()
export class AuditLogService {
  constructor(private readonly sql: SqlExecutor) {}

  async record(entry: Omit<AuditEntry, 'id' | 'createdAt'>): Promise<void> {
    await this.sql.affected(INSERT_AUDIT_ENTRY, [newId('aud'), entry.organizationId, entry.actorTokenId, entry.action, entry.target]);
  }

  /** Newest first; `action`, `since` (inclusive) and `until` (exclusive) narrow it. */
  async list(organizationId: string, limit: number, filter: AuditFilter = {}): Promise<AuditEntry[]> {
    const rows = await this.sql.rows(AUDIT_ENTRIES, [organizationId, limit, filter.action ?? null, filter.since?.toISOString() ?? null, filter.until?.toISOString() ?? null]);
    return rows.map((row) => ({
      id: row.id,
      organizationId: row.organization_id,
      actorTokenId: row.actor_token_id,
      action: row.action,
      target: row.target,
      createdAt: row.created_at.toISOString(),
    }));
  }
}
