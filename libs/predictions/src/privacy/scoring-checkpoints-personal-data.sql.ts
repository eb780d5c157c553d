import { sqlStatement } from '@foresight/platform';

/** The unfinished scoring runs whose checkpoint stands at the user. */
export const RUNS_STANDING_AT_USER = sqlStatement<{ scoringRun: string; state: string; createdAt: Date }, [organizationId: string, userId: string]>(
  'predictions.runs-standing-at-user',
  `SELECT id AS "scoringRun", state, created_at AS "createdAt" FROM scoring_runs WHERE organization_id = $1 AND checkpoint_user_id = $2 ORDER BY created_at`,
);
