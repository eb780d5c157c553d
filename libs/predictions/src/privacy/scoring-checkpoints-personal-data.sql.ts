import { sqlStatement } from '@foresight/platform';

/** The unfinished scoring runs with a shard whose checkpoint stands at the user. */
export const RUNS_STANDING_AT_USER = sqlStatement<{ scoringRun: string; shard: number; state: string; createdAt: Date }, [organizationId: string, userId: string]>(
  'predictions.runs-standing-at-user',
  `SELECT r.id AS "scoringRun", s.shard, r.state, r.created_at AS "createdAt"
     FROM scoring_run_shards s JOIN scoring_runs r ON r.organization_id = s.organization_id AND r.id = s.run_id
    WHERE s.organization_id = $1 AND s.checkpoint_user_id = $2 ORDER BY r.created_at, s.shard`,
);
