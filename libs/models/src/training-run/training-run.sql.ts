import { sqlStatement } from '@foresight/platform';

/** The number a model's next version gets (read inside the transaction that stores it). */
export const NEXT_VERSION = sqlStatement<{ next: number }, [organizationId: string, modelId: string]>(
  'models.next-version',
  `SELECT coalesce(max(version), 0) + 1 AS next FROM model_versions WHERE organization_id = $1 AND model_id = $2`,
);

/** retraining --error--> failed, or active when an earlier version keeps serving; no row when the run was superseded. */
export const FAIL_TRAINING = sqlStatement<{ name: string; algorithm: string }, [modelId: string, organizationId: string, reason: string]>(
  'models.fail-training',
  `UPDATE models SET status = CASE WHEN serving_version_id IS NULL THEN 'failed' ELSE 'active' END, last_error = $3, updated_at = now()
    WHERE id = $1 AND organization_id = $2 AND status = 'retraining'
    RETURNING name, algorithm`,
);

/** The training job holding `lockToken` takes the model's run over; no row when the run is not this job's (superseded, or the model gone). */
export const CLAIM_TRAINING = sqlStatement<{ id: string }, [modelId: string, organizationId: string, startedAt: string, lockToken: string]>(
  'models.claim-training',
  `UPDATE models SET training_lock_token = $4
    WHERE id = $1 AND organization_id = $2 AND status = 'retraining' AND date_trunc('milliseconds', retrain_started_at) = $3::timestamptz RETURNING id`,
);

/**
 * In the transaction that stores a version: the model's row, locked, while the job holding
 * `lockToken` still holds the run. No row once another job took it over: the version is not stored.
 */
export const LOCK_TRAINING_HOLDER = sqlStatement<{ id: string }, [modelId: string, organizationId: string, lockToken: string]>(
  'models.lock-training-holder',
  `SELECT id FROM models WHERE id = $1 AND organization_id = $2 AND status = 'retraining' AND training_lock_token = $3 FOR UPDATE`,
);
