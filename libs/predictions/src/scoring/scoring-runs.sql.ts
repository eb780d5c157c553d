import { type ScoringTrigger, sqlStatement } from '@foresight/platform';

export type ScoringRunState = 'queued' | 'running' | 'completed' | 'failed';

export interface RunRow {
  id: string;
  organization_id: string;
  model_ids: string[];
  trigger: ScoringTrigger;
  state: ScoringRunState;
  scored: number;
  total: number | null;
  changed: number;
  error: string | null;
  cutoff: Date | null;
  created_at: Date;
  started_at: Date | null;
  finished_at: Date | null;
}

type Run = [organizationId: string, runId: string];
type Shard = [...Run, shard: number];
/** A shard's writes name the lock token of the job that claimed it last: a worker that lost the job's lock writes nothing. */
type FencedShard = [...Shard, lockToken: string];

export const SCORING_RUN = sqlStatement<RunRow, Run>('predictions.scoring-run', `SELECT * FROM scoring_runs WHERE organization_id = $1 AND id = $2`);

/** The worker splits the run (first attempt or a retry): its cutoff is fixed by the first. No row when the run is over or unknown. */
export const BEGIN_SCORING_RUN = sqlStatement<RunRow, Run>(
  'predictions.begin-scoring-run',
  `UPDATE scoring_runs SET state = 'running', started_at = coalesce(started_at, now()), cutoff = coalesce(cutoff, now()), error = NULL
    WHERE organization_id = $1 AND id = $2 AND state IN ('queued', 'running', 'failed') RETURNING *`,
);

/** The run's shards ($3 and $4: each shard's first and last hash, in shard order), unless an earlier attempt made them. */
export const CREATE_SCORING_SHARDS = sqlStatement<never, [...Run, hashFrom: readonly number[], hashTo: readonly number[]]>(
  'predictions.create-scoring-shards',
  `INSERT INTO scoring_run_shards (organization_id, run_id, shard, hash_from, hash_to)
   SELECT $1, $2, (range.n - 1)::int, range.hash_from, range.hash_to FROM unnest($3::int[], $4::int[]) WITH ORDINALITY AS range (hash_from, hash_to, n)
    WHERE NOT EXISTS (SELECT 1 FROM scoring_run_shards WHERE organization_id = $1 AND run_id = $2)
   ON CONFLICT DO NOTHING`,
);

/**
 * Runs not over, in every organization, recorded more than $1 seconds ago, oldest first (at most $2):
 * those whose jobs the worker queues again, should Redis have lost them.
 */
export const UNFINISHED_SCORING_RUNS = sqlStatement<RunRow, [olderThanSeconds: number, limit: number]>(
  'predictions.unfinished-scoring-runs',
  `SELECT * FROM scoring_runs WHERE state IN ('queued', 'running') AND created_at < now() - make_interval(secs => $1) ORDER BY created_at LIMIT $2`,
);

/** The run's shards not completed yet: those to queue. */
export const OPEN_SCORING_SHARDS = sqlStatement<{ shard: number }, Run>(
  'predictions.open-scoring-shards',
  `SELECT shard FROM scoring_run_shards WHERE organization_id = $1 AND run_id = $2 AND state <> 'completed' ORDER BY shard`,
);

export interface ClaimedShardRow {
  hash_from: number;
  hash_to: number;
  checkpoint_user_id: string | null;
  cutoff: Date;
  model_ids: string[];
}

/**
 * A job takes the shard: its lock token becomes the shard's, so whoever held it before writes nothing
 * more. Waits for a chunk the previous holder is committing, and answers the checkpoint after it. No
 * row when the shard is completed (or the run gone).
 */
export const CLAIM_SCORING_SHARD = sqlStatement<ClaimedShardRow, FencedShard>(
  'predictions.claim-scoring-shard',
  `UPDATE scoring_run_shards s SET state = 'running', lock_token = $4
     FROM scoring_runs r
    WHERE s.organization_id = $1 AND s.run_id = $2 AND s.shard = $3 AND s.state <> 'completed'
      AND r.organization_id = s.organization_id AND r.id = s.run_id AND r.cutoff IS NOT NULL
   RETURNING s.hash_from, s.hash_to, s.checkpoint_user_id, r.cutoff, r.model_ids`,
);

/** The shard's total when it first starts (a resumed shard keeps it), added to the run's once. */
export const SET_SCORING_SHARD_TOTAL_ONCE = sqlStatement<never, [...FencedShard, total: number]>(
  'predictions.set-scoring-shard-total-once',
  `WITH shard AS (
     UPDATE scoring_run_shards SET total = $5
      WHERE organization_id = $1 AND run_id = $2 AND shard = $3 AND lock_token = $4 AND total IS NULL RETURNING total)
   UPDATE scoring_runs r SET total = coalesce(r.total, 0) + shard.total FROM shard WHERE r.organization_id = $1 AND r.id = $2`,
);

/** The shard's checkpoint, fenced; in the chunk's transaction. No row affected: the shard has another holder now. */
export const CHECKPOINT_SCORING_SHARD = sqlStatement<never, [...FencedShard, lastUser: string, scored: number, changed: number]>(
  'predictions.checkpoint-scoring-shard',
  `UPDATE scoring_run_shards SET checkpoint_user_id = $5, scored = scored + $6, changed = changed + $7
    WHERE organization_id = $1 AND run_id = $2 AND shard = $3 AND lock_token = $4`,
);

/** The run's counts, after its shard's fenced checkpoint in the same transaction (shard row, then run row: one lock order everywhere). */
export const COUNT_SCORING_RUN = sqlStatement<never, [...Run, scored: number, changed: number]>(
  'predictions.count-scoring-run',
  `UPDATE scoring_runs SET scored = scored + $3, changed = changed + $4 WHERE organization_id = $1 AND id = $2`,
);

/** The shard is done, fenced: its checkpoint (a user id) is not kept past it. */
export const COMPLETE_SCORING_SHARD = sqlStatement<never, FencedShard>(
  'predictions.complete-scoring-shard',
  `UPDATE scoring_run_shards SET state = 'completed', checkpoint_user_id = NULL
    WHERE organization_id = $1 AND run_id = $2 AND shard = $3 AND lock_token = $4`,
);

/** Shards completing at once take turns here, so the last of them sees every other one completed. */
export const LOCK_SCORING_RUN = sqlStatement<{ id: string }, Run>('predictions.lock-scoring-run', `SELECT id FROM scoring_runs WHERE organization_id = $1 AND id = $2 FOR UPDATE`);

/** The run completes once every shard has (a row only for the call that completed it). */
export const COMPLETE_SCORING_RUN = sqlStatement<RunRow, Run>(
  'predictions.complete-scoring-run',
  `UPDATE scoring_runs SET state = 'completed', finished_at = now(), error = NULL
    WHERE organization_id = $1 AND id = $2 AND state <> 'completed'
      AND NOT EXISTS (SELECT 1 FROM scoring_run_shards WHERE organization_id = $1 AND run_id = $2 AND state <> 'completed')
   RETURNING *`,
);

/**
 * A failed attempt ($4: the last one). The run stays running while the queue retries it, with the
 * error shown; after the last attempt it fails, and the shard ($5, when a shard failed) lets go of
 * its checkpoint.
 */
export const FAIL_SCORING_RUN = sqlStatement<never, [...Run, error: string, final: boolean, shard: number | null]>(
  'predictions.fail-scoring-run',
  `WITH shard AS (
     UPDATE scoring_run_shards SET state = 'failed', checkpoint_user_id = NULL
      WHERE organization_id = $1 AND run_id = $2 AND shard = $5 AND $4)
   UPDATE scoring_runs SET error = $3, state = CASE WHEN $4 THEN 'failed' ELSE state END, finished_at = CASE WHEN $4 THEN now() END
    WHERE organization_id = $1 AND id = $2 AND state <> 'completed'`,
);

export const RECORD_SCORING_RUN = sqlStatement<never, [...Run, modelIds: readonly string[], trigger: ScoringTrigger]>(
  'predictions.record-scoring-run',
  `INSERT INTO scoring_runs (id, organization_id, model_ids, trigger) VALUES ($2, $1, $3, $4) ON CONFLICT (organization_id, id) DO NOTHING`,
);
