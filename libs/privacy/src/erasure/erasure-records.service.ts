import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { newId } from '@foresight/platform';

export type ErasureStatus = 'pending' | 'confirmed';

/** Rows removed per store, summed over the request and every sweep. */
export type ErasedCounts = Record<string, number>;

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

interface ErasureRow {
  id: string;
  organization_id: string;
  user_hash: string;
  status: ErasureStatus;
  requested_at: Date;
  confirmed_at: Date | null;
  attempts: number;
  erased: ErasedCounts;
}

/** The erasure log: what was asked, what each store removed, and when the sweep confirmed nothing is left. */
@Injectable()
export class ErasureRecordsService {
  constructor(private readonly dataSource: DataSource) {}

  async open(organizationId: string, userHash: string): Promise<string> {
    const id = newId('era');
    await this.dataSource.query(`INSERT INTO erasures (id, organization_id, user_hash) VALUES ($1, $2, $3)`, [id, organizationId, userHash]);
    return id;
  }

  /** Removes a record whose erasure could not start (its sweep could not be queued). */
  async discard(id: string): Promise<void> {
    await this.dataSource.query(`DELETE FROM erasures WHERE id = $1`, [id]);
  }

  /** Adds a pass's counts; `confirmed` when the pass found nothing left anywhere. */
  async recordPass(id: string, erased: ErasedCounts, outcome: { sweep: boolean; confirmed: boolean }): Promise<void> {
    await this.dataSource.query(
      `UPDATE erasures
          SET erased = (SELECT coalesce(jsonb_object_agg(key, total), '{}'::jsonb) FROM (
                          SELECT key, sum(value::bigint) AS total FROM (
                            SELECT * FROM jsonb_each_text(erased) UNION ALL SELECT * FROM jsonb_each_text($2::jsonb)) AS counts
                           GROUP BY key) AS summed),
              attempts = attempts + $3,
              status = CASE WHEN $4 THEN 'confirmed' ELSE status END,
              confirmed_at = CASE WHEN $4 THEN now() ELSE confirmed_at END
        WHERE id = $1`,
      [id, JSON.stringify(erased), outcome.sweep ? 1 : 0, outcome.confirmed],
    );
  }

  /** Newest first; `userHash` narrows to one user's requests. */
  async list(organizationId: string, options: { userHash?: string; limit: number }): Promise<ErasureRecord[]> {
    const rows: ErasureRow[] = await this.dataSource.query(
      `SELECT * FROM erasures WHERE organization_id = $1 AND ($2::text IS NULL OR user_hash = $2)
        ORDER BY requested_at DESC, id DESC LIMIT $3`,
      [organizationId, options.userHash ?? null, options.limit],
    );
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
