import { batchedDelete, sqlStatement } from '@foresight/platform';

type Audience = [organizationId: string, audienceId: string];

/** One computation of an audience at a time (a run's job and a new audience's, say), for the transaction. */
export const LOCK_AUDIENCE = sqlStatement<never, Audience>('audiences.lock-audience', `SELECT pg_advisory_xact_lock(hashtext($1 || '/' || $2))`);

/**
 * The run's size row, claimed before computing: none comes back when the run was computed already (a
 * retried job), or the audience was deleted since the job was queued.
 */
export const CLAIM_COMPUTATION = sqlStatement<{ run_id: string }, [...Audience, runId: string]>(
  'audiences.claim-computation',
  `INSERT INTO audience_sizes (organization_id, audience_id, run_id, size, entered, left_count)
   SELECT organization_id, id, $3, 0, 0, 0 FROM audiences WHERE organization_id = $1 AND id = $2
   ON CONFLICT DO NOTHING RETURNING run_id`,
);

/** The departures of the computation before, announced by now. */
export const FORGET_DEPARTED = sqlStatement<never, Audience>(
  'audiences.forget-departed',
  `DELETE FROM audience_members WHERE organization_id = $1 AND audience_id = $2 AND left_run IS NOT NULL`,
);

/**
 * The members from the prediction log: each scored user's latest logged prediction of the model (one
 * per user, the latest by time then id), as the probability of the label (the log holds the more
 * probable label and its probability, so the other label's is one minus it). Scored means by the
 * model's latest completed bulk scoring run or since its cutoff ($8; every logged prediction before
 * the model's first run): a user the runs no longer score (inactive beyond the feature window) leaves,
 * and the read covers about one row per user instead of the whole log. Then everyone at or above
 * minConfidence, or the first ceil(scored x topPercent / 100) by probability then user id (in byte
 * order, whatever the database's collation). Members who are not chosen any more are marked as leaving
 * with the run, the chosen are inserted (entering with the run) or have their probability refreshed,
 * and the run's size row gets the counts.
 */
export const COMPUTE_MEMBERS = sqlStatement<
  { size: number; entered: number; left_count: number },
  [...Audience, runId: string, modelId: string, label: string, minConfidence: number | null, topPercent: number | null, scoredSince: Date | null]
>(
  'audiences.compute-members',
  `WITH latest AS (
     SELECT DISTINCT ON (user_id) user_id, predicted_at, CASE WHEN label = $5 THEN confidence ELSE 1 - confidence END AS probability
       FROM predictions
      WHERE organization_id = $1 AND model_id = $4 AND predicted_at >= coalesce($8::timestamptz, '-infinity')
      ORDER BY user_id, predicted_at DESC, id DESC
   ), ranked AS (
     SELECT user_id, predicted_at, probability, row_number() OVER (ORDER BY probability DESC, user_id COLLATE "C") AS rank, count(*) OVER () AS scored
       FROM latest
   ), chosen AS (
     SELECT user_id, predicted_at, probability FROM ranked
      WHERE CASE WHEN $6::float8 IS NOT NULL THEN probability >= $6::float8 ELSE rank <= ceil(scored * $7::numeric / 100) END
   ), departed AS (
     UPDATE audience_members m SET left_run = $3
      WHERE m.organization_id = $1 AND m.audience_id = $2 AND m.left_run IS NULL AND NOT EXISTS (SELECT 1 FROM chosen c WHERE c.user_id = m.user_id)
     RETURNING 1
   ), kept AS (
     INSERT INTO audience_members (organization_id, audience_id, user_id, confidence, scored_at, since, entered_run)
     SELECT $1, $2, user_id, probability, predicted_at, now(), $3 FROM chosen
     ON CONFLICT (organization_id, audience_id, user_id) DO UPDATE SET confidence = EXCLUDED.confidence, scored_at = EXCLUDED.scored_at
     RETURNING (xmax = 0) AS entered
   )
   UPDATE audience_sizes
      SET size = (SELECT count(*) FROM kept), entered = (SELECT count(*) FROM kept WHERE entered), left_count = (SELECT count(*) FROM departed), computed_at = now()
    WHERE organization_id = $1 AND audience_id = $2 AND run_id = $3
   RETURNING size, entered, left_count`,
);

/** Where the users the model's latest completed bulk scoring run scored start in the log: its cutoff (null before the first run). */
export const SCORED_SINCE = sqlStatement<{ cutoff: Date | null }, [organizationId: string, modelId: string]>(
  'audiences.scored-since',
  `SELECT max(cutoff) AS cutoff FROM scoring_runs WHERE organization_id = $1 AND state = 'completed' AND $2 = ANY(model_ids)`,
);

/** The audience's computations not announced to the end yet, oldest first (a job that failed or died between computing and announcing). */
export const UNANNOUNCED_RUNS = sqlStatement<{ run_id: string }, Audience>(
  'audiences.unannounced-runs',
  `SELECT run_id FROM audience_sizes WHERE organization_id = $1 AND audience_id = $2 AND announced_at IS NULL ORDER BY computed_at, run_id`,
);

/** Every entry and departure of the computation was published. */
export const MARK_ANNOUNCED = sqlStatement<never, [...Audience, runId: string]>(
  'audiences.mark-announced',
  `UPDATE audience_sizes SET announced_at = now() WHERE organization_id = $1 AND audience_id = $2 AND run_id = $3`,
);

/** Who entered with the run, in user id order (the batches' order, so a retried job cuts the same batches). */
export const RUN_ENTRIES = sqlStatement<{ user_id: string }, [...Audience, runId: string]>(
  'audiences.run-entries',
  `SELECT user_id FROM audience_members WHERE organization_id = $1 AND audience_id = $2 AND entered_run = $3 AND left_run IS NULL ORDER BY user_id`,
);

/** Who left with the run, in user id order. */
export const RUN_DEPARTURES = sqlStatement<{ user_id: string }, [...Audience, runId: string]>(
  'audiences.run-departures',
  `SELECT user_id FROM audience_members WHERE organization_id = $1 AND audience_id = $2 AND left_run = $3 ORDER BY user_id`,
);

export interface AudienceSizeRow {
  audience_id: string;
  run_id: string;
  size: number;
  entered: number;
  left_count: number;
  computed_at: Date;
}

/** Each audience's latest computation. */
export const LATEST_SIZES = sqlStatement<AudienceSizeRow, [organizationId: string, audienceIds: readonly string[]]>(
  'audiences.latest-sizes',
  `SELECT DISTINCT ON (audience_id) audience_id, run_id, size, entered, left_count, computed_at
     FROM audience_sizes WHERE organization_id = $1 AND audience_id = ANY($2::text[])
    ORDER BY audience_id, computed_at DESC`,
);

/** An audience's last `limit` computations, newest first. */
export const SIZE_HISTORY = sqlStatement<AudienceSizeRow, [...Audience, limit: number]>(
  'audiences.size-history',
  `SELECT audience_id, run_id, size, entered, left_count, computed_at
     FROM audience_sizes WHERE organization_id = $1 AND audience_id = $2 ORDER BY computed_at DESC LIMIT $3`,
);

const SINCE = `to_char(since AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

/** A member as a JSON object, or as a CSV line (the user id always quoted, its quotes doubled). */
const MEMBER_RECORD = {
  json: `'{"userId":' || to_json(user_id) || ',"confidence":' || confidence || ',"since":"' || ${SINCE} || '"}'`,
  csv: `'"' || replace(user_id, '"', '""') || '",' || confidence || ',' || ${SINCE}`,
} as const;

export type MemberRecordFormat = keyof typeof MEMBER_RECORD;

/** Aliased: a bare "id" in ORDER BY would name the text output column and sort "10" before "9". */
const MEMBER_ID = 'id::text AS member_id';

/** [record, id] */
export type MemberRow = [record: string, id: string];

type MemberPage = [...Audience, fromId: string, limit: number];

const memberBatch = (format: MemberRecordFormat) =>
  sqlStatement<MemberRow, MemberPage>(
    `audiences.member-batch-${format}`,
    `SELECT ${MEMBER_RECORD[format]}, ${MEMBER_ID} FROM audience_members
      WHERE organization_id = $1 AND audience_id = $2 AND left_run IS NULL AND id >= $3::bigint ORDER BY id LIMIT $4`,
  );

/** Up to `limit` current members from member id `fromId` on, in id order, each as a record of the format. */
export const MEMBER_BATCH = { json: memberBatch('json'), csv: memberBatch('csv') } as const;

/** The id of the member `offset` members after `fromId` (inclusive): where the next page starts. */
export const MEMBER_AT = sqlStatement<{ member_id: string }, [...Audience, fromId: string, offset: number]>(
  'audiences.member-at',
  `SELECT ${MEMBER_ID} FROM audience_members
    WHERE organization_id = $1 AND audience_id = $2 AND left_run IS NULL AND id >= $3::bigint ORDER BY id OFFSET $4 LIMIT 1`,
);

type User = [organizationId: string, userId: string];

/** The user's rows in every audience of the organization. */
export const USER_MEMBERSHIPS = sqlStatement<Record<string, unknown>, User>(
  'audiences.user-memberships',
  `SELECT m.audience_id AS "audienceId", a.name AS audience, a.model_id AS "modelId", a.label, m.confidence, m.scored_at AS "scoredAt", m.since,
          m.left_run IS NOT NULL AS "leaving"
     FROM audience_members m JOIN audiences a ON a.organization_id = m.organization_id AND a.id = m.audience_id
    WHERE m.organization_id = $1 AND m.user_id = $2
    ORDER BY m.audience_id`,
);

export const ERASE_USER_MEMBERSHIPS = sqlStatement<never, User>(
  'audiences.erase-user-memberships',
  `DELETE FROM audience_members WHERE organization_id = $1 AND user_id = $2`,
);

/** count(*) is a bigint: pg hands it over as text. */
export const USER_MEMBERSHIP_ROWS = sqlStatement<{ n: string }, User>(
  'audiences.user-membership-rows',
  `SELECT count(*) AS n FROM audience_members WHERE organization_id = $1 AND user_id = $2`,
);

/** Memberships resting on a prediction older than retention (which removes the prediction itself). */
export const EXPIRE_MEMBERSHIPS = batchedDelete<[organizationId: string, before: string]>('audiences.expire-memberships', 'audience_members', 'organization_id = $1 AND scored_at < $2');
