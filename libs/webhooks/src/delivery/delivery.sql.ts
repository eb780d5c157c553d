import { sqlStatement } from '@foresight/platform';

/**
 * Starts the failing period on the first failure after a success; once it is older than $2 ms the
 * webhook is disabled, with $3 as the reason. One UPDATE, so concurrent attempts agree.
 */
export const NOTE_WEBHOOK_FAILURE = sqlStatement<{ enabled: boolean }, [webhookId: string, disableAfterMs: number, disabledReason: string]>(
  'webhooks.note-failure',
  `UPDATE webhooks SET
     failing_since = coalesce(failing_since, now()),
     enabled = enabled AND coalesce(failing_since >= now() - $2::double precision * interval '1 millisecond', true),
     disabled_reason = CASE WHEN failing_since < now() - $2::double precision * interval '1 millisecond' THEN coalesce(disabled_reason, $3) ELSE disabled_reason END
   WHERE id = $1
   RETURNING enabled`,
);
