import { sqlStatement } from '@foresight/platform';

/** untrained | active | failed → retraining; no row touched while a run is in flight (one UPDATE decides concurrent requests). */
export const START_RETRAINING = sqlStatement<never, [modelId: string, organizationId: string]>(
  'models.start-retraining',
  `UPDATE models SET status = 'retraining', retrain_started_at = now(), updated_at = now()
    WHERE id = $1 AND organization_id = $2 AND status <> 'retraining'`,
);

/** The model serves $3; a run in flight stays `retraining`, otherwise a model with a serving version is active. */
export const SERVE_VERSION = sqlStatement<never, [modelId: string, organizationId: string, versionId: string]>(
  'models.serve-version',
  `UPDATE models SET serving_version_id = $3, status = CASE WHEN status = 'retraining' THEN status ELSE 'active' END, updated_at = now()
    WHERE id = $1 AND organization_id = $2`,
);

/** The organization's models that have a serving version, by name: serving reads it on every request. */
export const SERVING_VERSIONS = sqlStatement<{ modelId: string; name: string; labels: [negative: string, positive: string]; versionId: string }, [organizationId: string]>(
  'models.serving-versions',
  `SELECT id AS "modelId", name, labels, serving_version_id AS "versionId" FROM models
    WHERE organization_id = $1 AND serving_version_id IS NOT NULL
    ORDER BY name`,
  { prepared: true },
);
