import { sqlStatement } from '@foresight/platform';

/** The number a model's next version gets (read inside the transaction that stores it). */
export const NEXT_VERSION = sqlStatement<{ next: number }, [modelId: string]>(
  'models.next-version',
  `SELECT coalesce(max(version), 0) + 1 AS next FROM model_versions WHERE model_id = $1`,
);
