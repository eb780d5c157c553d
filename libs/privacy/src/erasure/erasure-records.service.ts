import { Injectable } from '@nestjs/common';
import { SqlExecutor } from '@foresight/platform';
import { DISCARD_ERASURE, type ErasedCounts, ERASURES, type ErasureStatus, OPEN_ERASURE, RECORD_ERASURE_PASS, UNCONFIRMED_ERASURES } from './erasure-records.sql';

export interface ErasureRecord {
  id: string;
  organizationId: string;
  /** UserIds.userHash of the erased user: lets an operator find a request without the id in clear. */
  userHash: string;
  status: ErasureStatus;
  requestedAt: string;
  confirmedAt: string | null;
  /** Sweeps run so far. */
  attempts: number;
  erased: ErasedCounts;
}

/**
 * The erasure log: what was asked, what each store removed, and when the sweep confirmed nothing is
 * left. On the primary: a request's record is read back right after it is written.
 */
@Injectable()
export class ErasureRecordsService {
  constructor(private readonly sql: SqlExecutor) {}

  /** `userIdSealed`: what its sweep job carries, kept until the sweep confirms, so the job can be queued again if Redis loses it. */
  async open(id: string, organizationId: string, userHash: string, userIdSealed: string): Promise<void> {
    await this.sql.affected(OPEN_ERASURE, [id, organizationId, userHash, userIdSealed]);
  }

  /** Every organization's erasures not confirmed after `olderThanSeconds`, with their sealed user id (see UNCONFIRMED_ERASURES). */
  async unconfirmed(olderThanSeconds: number, limit: number): Promise<Array<{ erasureId: string; organizationId: string; sealedUserId: string }>> {
    const rows = await this.sql.rows(UNCONFIRMED_ERASURES, [olderThanSeconds, limit]);
    return rows.map((row) => ({ erasureId: row.id, organizationId: row.organization_id, sealedUserId: row.user_id_sealed }));
  }

  /** Removes a record whose erasure could not start (its sweep could not be queued). */
  async discard(organizationId: string, id: string): Promise<void> {
    await this.sql.affected(DISCARD_ERASURE, [id, organizationId]);
  }

  /** Adds a pass's counts; `confirmed` when the pass found nothing left anywhere. */
  async recordPass(organizationId: string, id: string, erased: ErasedCounts, outcome: { sweep: boolean; confirmed: boolean }): Promise<void> {
    await this.sql.affected(RECORD_ERASURE_PASS, [id, organizationId, JSON.stringify(erased), outcome.sweep ? 1 : 0, outcome.confirmed]);
  }

  /** Newest first; `userHashes` (UserIdsService.userHashes) narrows to one user's requests. */
  async list(organizationId: string, options: { userHashes?: string[]; limit: number }): Promise<ErasureRecord[]> {
    const rows = await this.sql.rows(ERASURES, [organizationId, options.userHashes ?? null, options.limit]);
    return rows.map((row) => ({
      id: row.id,
      organizationId: row.organization_id,
      userHash: row.user_hash,
      status: row.status,
      requestedAt: row.requested_at.toISOString(),
      confirmedAt: row.confirmed_at?.toISOString() ?? null,
      attempts: row.attempts,
      erased: row.erased,
    }));
  }
}
