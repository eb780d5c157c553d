/**
 * A user's events: their own and, when an event names no user, those of every anonymousId linked to
 * them (identify, or an event carrying both), so anonymous history counts for the identified user.
 * The same rule as training and serving. $1 organization; `user` is the user (as stored), a
 * parameter or a column of an outer query. Unqualified columns are those of `events`.
 */
export const userEventsFilter = (user: string) => `
  organization_id = $1
  AND (user_id = ${user} OR (user_id IS NULL AND anonymous_id IN (SELECT anonymous_id FROM identities WHERE organization_id = $1 AND user_id = ${user})))`;

/** userEventsFilter for the user in $2. */
export const USER_EVENTS_FILTER = userEventsFilter('$2');
