import { sqlStatement } from '@foresight/platform';
import type { Role } from '../tokens/scopes';

/** Strongest first (ROLES is weakest first). */
const ROLE_RANK = `array_position(ARRAY['viewer', 'editor', 'admin'], g.role)`;

export const SSO_GRANTS_OF_ORGANIZATION = sqlStatement<{ group_name: string; role: Role }, [organizationId: string]>(
  'auth.sso-grants-of-organization',
  `SELECT g.group_name, g.role FROM sso_grants g WHERE g.organization_id = $1 ORDER BY g.group_name`,
);

export const DELETE_SSO_GRANTS = sqlStatement<never, [organizationId: string]>('auth.delete-sso-grants', `DELETE FROM sso_grants WHERE organization_id = $1`);

export const UPSERT_SSO_GRANTS = sqlStatement<never, [organizationId: string, groups: string[], roles: Role[]]>(
  'auth.upsert-sso-grants',
  `INSERT INTO sso_grants (organization_id, group_name, role)
   SELECT $1, group_name, role FROM unnest($2::text[], $3::text[]) AS g(group_name, role)
   ON CONFLICT (organization_id, group_name) DO UPDATE SET role = EXCLUDED.role`,
);

export const DELETE_SSO_GRANT = sqlStatement<never, [organizationId: string, group: string]>(
  'auth.delete-sso-grant',
  `DELETE FROM sso_grants WHERE organization_id = $1 AND group_name = $2`,
);

/**
 * At sign-in, across organizations (the person names none yet): the organization where the groups
 * hold the strongest role, then the oldest organization, and that role.
 */
export const SSO_GRANT_FOR_GROUPS = sqlStatement<{ organization_id: string; role: Role }, [groups: string[]]>(
  'auth.sso-grant-for-groups',
  `SELECT g.organization_id, g.role
     FROM sso_grants g
     JOIN organizations o ON o.id = g.organization_id
    WHERE g.group_name = ANY($1::text[])
    ORDER BY ${ROLE_RANK} DESC, o.created_at, o.id
    LIMIT 1`,
);

/** At each refresh: the strongest role the groups hold in the session's organization. */
export const SSO_ROLE_IN_ORGANIZATION = sqlStatement<{ role: Role }, [organizationId: string, groups: string[]]>(
  'auth.sso-role-in-organization',
  `SELECT g.role FROM sso_grants g WHERE g.organization_id = $1 AND g.group_name = ANY($2::text[]) ORDER BY ${ROLE_RANK} DESC LIMIT 1`,
);
