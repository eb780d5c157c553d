/**
 * A user's events: their own and, when an event names no user, those of every anonymousId linked to
 * them (identify, or an event carrying both), so anonymous history counts for the identified user.
 * The same rule as training and serving. $1 organization, $2 user (as stored).
 */
export const USER_EVENTS_FILTER = `
  organization_id = $1
  AND (user_id = $2 OR (user_id IS NULL AND anonymous_id IN (SELECT anonymous_id FROM identities WHERE organization_id = $1 AND user_id = $2)))`;
