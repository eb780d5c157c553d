import { Injectable } from '@nestjs/common';
import { type PersonalDataStore, PersonalDataStoreProvider, SqlExecutor } from '@foresight/platform';
import { ANNOUNCEMENTS_OF_USER, ERASE_ANNOUNCEMENTS_OF_USER, RUNS_STANDING_AT_USER } from './scoring-checkpoints-personal-data.sql';

/**
 * A bulk scoring shard's checkpoint names the last user of its last committed chunk while the shard
 * is unfinished (it is cleared when the shard ends). It cannot be rewritten without the resumed shard
 * scoring users twice, so erasure waits for it: `remaining` counts it, the erasure sweep retries, and
 * the next chunk's commit or the end of the shard moves it past the user. A shard's announcements
 * not yet published (its outbox) name the user too: erased, never sent.
 */
@Injectable()
@PersonalDataStoreProvider()
export class ScoringCheckpointsPersonalDataService implements PersonalDataStore {
  readonly name = 'scoringCheckpoints';
  readonly userIdColumns = [
    { table: 'scoring_run_shards', column: 'checkpoint_user_id' },
    { table: 'scoring_announcements', column: 'user_id' },
  ];

  constructor(private readonly sql: SqlExecutor) {}

  /** The unfinished shards standing at the user, and the user's announcements not yet published. */
  async export(organizationId: string, userId: string): Promise<unknown[]> {
    const [standing, announcements] = await Promise.all([
      this.sql.rows(RUNS_STANDING_AT_USER, [organizationId, userId]),
      this.sql.rows(ANNOUNCEMENTS_OF_USER, [organizationId, userId]),
    ]);
    return [...standing, ...announcements.map((announcement) => ({ ...announcement, unpublished: 'prediction.updated' }))];
  }

  /** The announcements only; checkpoints are not removed here (see the class): the sweep confirms once no shard stands at the user. */
  erase(organizationId: string, userId: string): Promise<number> {
    return this.sql.affected(ERASE_ANNOUNCEMENTS_OF_USER, [organizationId, userId]);
  }

  async remaining(organizationId: string, userId: string): Promise<number> {
    return (await this.export(organizationId, userId)).length;
  }
}
