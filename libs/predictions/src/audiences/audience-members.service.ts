import { Injectable } from '@nestjs/common';
import { invalidRequest, isBigintText, SqlExecutor } from '@foresight/platform';
import { packRecords, RECORD_SEPARATOR, type SerializedBatch } from '../export/serialized-batch';
import { MEMBER_AT, MEMBER_BATCH } from './audiences.sql';

/** Members per query: large enough to amortise a round trip, small enough to keep memory flat. */
const BATCH_ROWS = 5_000;

/** How members are written: NDJSON lines, the elements of a JSON array, or CSV lines (after MEMBERS_CSV_HEADER). */
export type MemberFormat = 'ndjson' | 'json-array' | 'csv';

export const MEMBERS_CSV_HEADER = 'userId,confidence,since';

/** Which audience's members, from where (a page cursor: the first member of the page). */
export interface MembersRead {
  organizationId: string;
  audienceId: string;
  from?: string;
}

/** A page cursor names a member row's id, never a user. */
export function encodeMembersCursor(memberId: string): string {
  return Buffer.from(`m${memberId}`).toString('base64url');
}

/** 400 for anything that is not a cursor this service issued. */
export function decodeMembersCursor(cursor: string): string {
  const match = /^m(\d{1,19})$/.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
  if (!match || !isBigintText(match[1])) throw invalidRequest('cursor: not a cursor from a Link header of this endpoint', [{ path: 'cursor', message: 'invalid cursor' }]);
  return match[1];
}

/**
 * An audience's current members in member id order, read in keyset batches from the read replica
 * when one is configured, as the prediction export reads the log: one short indexed query per batch,
 * nothing held open while the client reads. The caller checks the audience is the organization's.
 */
@Injectable()
export class AudienceMembersService {
  constructor(private readonly sql: SqlExecutor) {}

  /** Up to `limit` members (all when undefined), serialized in batches. */
  async *batches(read: MembersRead, format: MemberFormat, limit?: number): AsyncGenerator<SerializedBatch> {
    const statement = MEMBER_BATCH[format === 'csv' ? 'csv' : 'json'];
    const separator = format === 'json-array' ? RECORD_SEPARATOR.comma : RECORD_SEPARATOR.newline;
    let remaining = limit ?? Number.POSITIVE_INFINITY;
    let from = read.from ?? '0';
    while (remaining > 0) {
      const take = Math.min(BATCH_ROWS, remaining);
      const rows = await this.sql.replica.arrays(statement, [read.organizationId, read.audienceId, from, take]);
      if (rows.length === 0) return;
      yield { bytes: packRecords(rows, separator), rows: rows.length };
      from = (BigInt(rows[rows.length - 1][1]) + 1n).toString();
      remaining -= rows.length;
      if (rows.length < take) return;
    }
  }

  /** The member after a page of `limit`: where the next page starts, if any member remains. */
  async nextPageStart(read: MembersRead, limit: number): Promise<string | undefined> {
    const row = await this.sql.replica.first(MEMBER_AT, [read.organizationId, read.audienceId, read.from ?? '0', limit]);
    return row?.member_id;
  }
}
