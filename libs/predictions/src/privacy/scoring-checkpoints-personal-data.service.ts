import { Injectable } from '@nestjs/common';
import { type PersonalDataStore, PersonalDataStoreProvider, SqlExecutor } from '@foresight/platform';
import { RUNS_STANDING_AT_USER } from './scoring-checkpoints-personal-data.sql';

/**
 * A bulk scoring run's checkpoint names the last user of its last committed chunk while the run is
 * unfinished (it is cleared when the run ends). It cannot be rewritten without the resumed run
 * scoring users twice, so erasure waits for it: `remaining` counts it, the erasure sweep retries, and
 * the next chunk's commit or the end of the run moves it past the user.
 */
@Injectable()
@PersonalDataStoreProvider()
export class ScoringCheckpointsPersonalDataService implements PersonalDataStore {
  readonly name = 'scoringCheckpoints';
  readonly userIdColumns = [{ table: 'scoring_runs', column: 'checkpoint_user_id' }];

  constructor(private readonly sql: SqlExecutor) {}

  /** The unfinished runs standing at the user. */
  export(organizationId: string, userId: string): Promise<unknown[]> {
    return this.sql.rows(RUNS_STANDING_AT_USER, [organizationId, userId]);
  }

  /** Nothing is removed here (see the class); the sweep confirms once no run stands at the user. */
  erase(): Promise<number> {
    return Promise.resolve(0);
  }

  async remaining(organizationId: string, userId: string): Promise<number> {
    return (await this.export(organizationId, userId)).length;
  }
}
