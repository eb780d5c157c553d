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
