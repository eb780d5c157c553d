import { Injectable } from '@nestjs/common';
import { type PersonalDataStore, PersonalDataStoreProvider, SqlExecutor } from '@foresight/platform';
import { RUNS_STANDING_AT_USER } from './scoring-checkpoints-personal-data.sql';

/**
 * A bulk scoring shard's checkpoint names the last user of its last committed chunk while the shard
 * is unfinished (it is cleared when the shard ends). It cannot be rewritten without the resumed shard
 * scoring users twice, so erasure waits for it: `remaining` counts it, the erasure sweep retries, and
 * the next chunk's commit or the end of the shard moves it past the user. A shard's announcements not
 * yet fanned out are in the domain events' outbox, whose own store erases them.
 */
@Injectable()
@PersonalDataStoreProvider()
export class ScoringCheckpointsPersonalDataService implements PersonalDataStore {
  readonly name = 'scoringCheckpoints';
  readonly userIdColumns = [{ table: 'scoring_run_shards', column: 'checkpoint_user_id' }];

  constructor(private readonly sql: SqlExecutor) {}

  /** The unfinished shards standing at the user. */
  export(organizationId: string, userId: string): Promise<unknown[]> {
    return this.sql.rows(RUNS_STANDING_AT_USER, [organizationId, userId]);
  }

  /** Nothing is removed here (see the class); the sweep confirms once no shard stands at the user. */
  erase(): Promise<number> {
    return Promise.resolve(0);
  }

  async remaining(organizationId: string, userId: string): Promise<number> {
    return (await this.export(organizationId, userId)).length;
  }
}
