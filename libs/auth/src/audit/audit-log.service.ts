import { Injectable } from '@nestjs/common';
import { newId, SqlExecutor } from '@foresight/platform';
import type { Person } from '../tokens/principal';
import { AUDIT_ENTRIES, INSERT_AUDIT_ENTRY } from './audit-log.sql';
import type { AuditedAction } from './audited-actions';

/** Who acted: an API token, a person signed in through single sign-on, or an operator at the CLI. */
export type AuditActor = 'token' | 'person' | 'cli';

export interface AuditEntry {
  id: string;
  organizationId: string;
  actor: AuditActor;
  /** The token that acted; null for a person (below) and for operators at the CLI. */
  actorTokenId: string | null;
  /** The person signed in through single sign-on who acted; null for a token and for operators at the CLI. */
  actorPerson: Person | null;
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

  /** An action of an API caller: a token or a person. */
  async record(entry: Omit<AuditEntry, 'id' | 'createdAt' | 'actor'>): Promise<void> {
    const person = entry.actorPerson;
    await this.sql.affected(INSERT_AUDIT_ENTRY, [
      newId('aud'),
      entry.organizationId,
      entry.actorTokenId,
      person?.subject ?? null,
      person?.email ?? null,
      person?.name ?? null,
      entry.action,
      entry.target,
    ]);
  }

  /** An action of an operator at the CLI, who holds no token and is no signed-in person: recorded with neither. */
  recordCli(organizationId: string, action: AuditedAction, target: string | null): Promise<void> {
    return this.record({ organizationId, actorTokenId: null, actorPerson: null, action, target });
  }

  /** Newest first; `action`, `since` (inclusive) and `until` (exclusive) narrow it. */
  async list(organizationId: string, limit: number, filter: AuditFilter = {}): Promise<AuditEntry[]> {
    const rows = await this.sql.rows(AUDIT_ENTRIES, [organizationId, limit, filter.action ?? null, filter.since?.toISOString() ?? null, filter.until?.toISOString() ?? null]);
    return rows.map((row) => ({
      id: row.id,
      organizationId: row.organization_id,
      actor: row.actor_token_id !== null ? 'token' : row.actor_subject !== null ? 'person' : 'cli',
      actorTokenId: row.actor_token_id,
      actorPerson: row.actor_subject === null ? null : { subject: row.actor_subject, email: row.actor_email, name: row.actor_name },
      action: row.action,
      target: row.target,
      createdAt: row.created_at.toISOString(),
    }));
  }
}
