import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { newId } from '@foresight/platform';

export const AUDITED_ACTIONS = [
  'token.create',
  'token.revoke',
  'model.create',
  'model.retrain',
  'model.update',
  'model.promote',
  'model.delete',
  'model.score',
  'user.export',
  'user.delete',
  'user.unsuppress',
  'webhook.create',
  'webhook.delete',
  'organization.update',
] as const;
export type AuditedAction = (typeof AUDITED_ACTIONS)[number];

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

interface AuditRow {
  id: string;
  organization_id: string;
  actor_token_id: string | null;
  action: AuditedAction;
  target: string | null;
  created_at: Date;
}

/** Append-only record of admin actions. */
@Injectable()
export class AuditLogService {
  constructor(private readonly dataSource: DataSource) {}

  async record(entry: Omit<AuditEntry, 'id' | 'createdAt'>): Promise<void> {
    await this.dataSource.query(`INSERT INTO audit_log (id, organization_id, actor_token_id, action, target) VALUES ($1, $2, $3, $4, $5)`, [
      newId('aud'),
      entry.organizationId,
      entry.actorTokenId,
      entry.action,
      entry.target,
    ]);
  }

  /** Newest first; `action`, `since` (inclusive) and `until` (exclusive) narrow it. */
  async list(organizationId: string, limit: number, filter: AuditFilter = {}): Promise<AuditEntry[]> {
    const rows: AuditRow[] = await this.dataSource.query(
      `SELECT * FROM audit_log
        WHERE organization_id = $1 AND ($3::text IS NULL OR action = $3)
          AND created_at >= coalesce($4::timestamptz, '-infinity') AND created_at < coalesce($5::timestamptz, 'infinity')
        ORDER BY created_at DESC, id DESC LIMIT $2`,
      [organizationId, limit, filter.action ?? null, filter.since?.toISOString() ?? null, filter.until?.toISOString() ?? null],
    );
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
