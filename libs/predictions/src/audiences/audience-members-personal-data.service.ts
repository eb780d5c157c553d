import { Injectable } from '@nestjs/common';
import { deleteInBatches, type PersonalDataStore, PersonalDataStoreProvider, SqlExecutor } from '@foresight/platform';
import { ERASE_USER_MEMBERSHIPS, EXPIRE_MEMBERSHIPS, USER_MEMBERSHIP_ROWS, USER_MEMBERSHIPS } from './audiences.sql';

/**
 * A user's memberships of every audience. Erasure removes the user from all of them at once (the next
 * computation finds no prediction of the user, so the user does not come back); retention removes
 * memberships resting on a prediction it removes.
 */
@Injectable()
@PersonalDataStoreProvider()
export class AudienceMembersPersonalDataService implements PersonalDataStore {
  readonly name = 'audienceMemberships';
  readonly userIdColumns = [{ table: 'audience_members', column: 'user_id' }];

  constructor(private readonly sql: SqlExecutor) {}

  export(organizationId: string, userId: string): Promise<unknown[]> {
    return this.sql.rows(USER_MEMBERSHIPS, [organizationId, userId]);
  }

  erase(organizationId: string, userId: string): Promise<number> {
    return this.sql.affected(ERASE_USER_MEMBERSHIPS, [organizationId, userId]);
  }

  async remaining(organizationId: string, userId: string): Promise<number> {
    const [{ n }] = await this.sql.rows(USER_MEMBERSHIP_ROWS, [organizationId, userId]);
    return Number(n);
  }

  expire(organizationId: string, before: Date): Promise<number> {
    return deleteInBatches(this.sql, EXPIRE_MEMBERSHIPS, [organizationId, before.toISOString()]);
  }
}
