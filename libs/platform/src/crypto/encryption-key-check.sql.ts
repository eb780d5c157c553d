import { sqlStatement } from '../database/sql/sql-statement';

export const STORED_KEY_CHECK = sqlStatement<{ sealed: string }, []>('platform.stored-key-check', `SELECT sealed FROM encryption_key_check`);

/** Concurrent first starts (two API replicas on a new database) store one check; each then opens the one stored. */
export const STORE_KEY_CHECK = sqlStatement<never, [sealed: string]>(
  'platform.store-key-check',
  `INSERT INTO encryption_key_check (sealed) VALUES ($1) ON CONFLICT (singleton) DO NOTHING`,
);

/** Re-sealed under the current key only if no other process re-sealed it meanwhile. */
export const RESEAL_KEY_CHECK = sqlStatement<never, [sealed: string, previous: string]>(
  'platform.reseal-key-check',
  `UPDATE encryption_key_check SET sealed = $1, updated_at = now() WHERE sealed = $2`,
);

/**
 * The key id of one sealed event, for a database sealed before the check existed. Organization-blind by
 * design: it reads which key sealed the data, never the data.
 */
export const SOME_SEALED_EVENT_KEY = sqlStatement<{ keyId: string }, []>(
  'platform.some-sealed-event-key',
  `SELECT encryption_key_id AS "keyId" FROM events WHERE encryption_key_id IS NOT NULL LIMIT 1`,
);
