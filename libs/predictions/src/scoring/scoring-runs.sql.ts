import { type ScoringTrigger, sqlStatement } from '@foresight/platform';

export type ScoringRunState = 'queued' | 'running' | 'completed' | 'failed';

export interface RunRow {
  id: string;
  organization_id: string;
  model_ids: string[];
  trigger: ScoringTrigger;
  state: ScoringRunState;
  checkpoint_user_id: string | null;
  scored: number;
  total: number | null;
  changed: number;
  error: string | null;
  created_at: Date;
  started_at: Date | null;
  finished_at: Date | null;
}

export const SCORING_RUN = sqlStatement<RunRow, [organizationId: string, runId: string]>(
  'predictions.scoring-run',
  `SELECT * FROM scoring_runs WHERE organization_id = $1 AND id = $2`,
);

/** The worker takes the run up; no row when the run is over (completed) or unknown. */
export const BEGIN_SCORING_RUN = sqlStatement<RunRow, [runId: string, organizationId: string]>(
  'predictions.begin-scoring-run',
  `UPDATE scoring_runs SET state = 'running', started_at = coalesce(started_at, now()), error = NULL
    WHERE id = $1 AND organization_id = $2 AND state IN ('queued', 'running', 'failed') RETURNING *`,
);

export const SET_SCORING_RUN_TOTAL_ONCE = sqlStatement<{ total: number }, [runId: string, organizationId: string, total: number]>(
  'predictions.set-scoring-run-total-once',
  `UPDATE scoring_runs SET total = coalesce(total, $3) WHERE id = $1 AND organization_id = $2 RETURNING total`,
);

export const CHECKPOINT_SCORING_RUN = sqlStatement<never, [runId: string, organizationId: string, lastUser: string | null, scored: number, changed: number]>(
  'predictions.checkpoint-scoring-run',
  `UPDATE scoring_runs SET checkpoint_user_id = $3, scored = $4, changed = $5 WHERE id = $1 AND organization_id = $2`,
);

export const COMPLETE_SCORING_RUN = sqlStatement<never, [runId: string, organizationId: string]>(
  'predictions.complete-scoring-run',
  `UPDATE scoring_runs SET state = 'completed', checkpoint_user_id = NULL, finished_at = now() WHERE id = $1 AND organization_id = $2`,
);

/** $4: the last attempt; the run then ends, and its checkpoint (a user id) goes. */
export const FAIL_SCORING_RUN = sqlStatement<never, [runId: string, organizationId: string, error: string, final: boolean]>(
  'predictions.fail-scoring-run',
  `UPDATE scoring_runs SET state = 'failed', error = $3, finished_at = CASE WHEN $4 THEN now() END,
          checkpoint_user_id = CASE WHEN $4 THEN NULL ELSE checkpoint_user_id END
    WHERE id = $1 AND organization_id = $2`,
);

export const RECORD_SCORING_RUN = sqlStatement<never, [runId: string, organizationId: string, modelIds: readonly string[], trigger: ScoringTrigger]>(
  'predictions.record-scoring-run',
  `INSERT INTO scoring_runs (id, organization_id, model_ids, trigger) VALUES ($1, $2, $3, $4) ON CONFLICT (organization_id, id) DO NOTHING`,
);
