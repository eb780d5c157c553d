import type { RoleGrant } from '@foresight/platform';
import { type Role, ROLES } from '../tokens/scopes';

export interface GrantedRole {
  readonly organizationId: string;
  readonly role: Role;
}

/**
 * What a person's groups (the values of the configured claim: a list, or one string) grant: the
 * organization of the first grant that names one of their groups, at the strongest role their groups
 * hold there. Null: no group of theirs is granted anything.
 */
export function grantedRole(claims: Readonly<Record<string, unknown>>, claim: string, grants: readonly RoleGrant[]): GrantedRole | null {
  const value = claims[claim];
  const groups = new Set((Array.isArray(value) ? value : [value]).filter((group): group is string => typeof group === 'string'));
  const held = grants.filter((grant) => groups.has(grant.group));
  if (held.length === 0) return null;
  const { organizationId } = held[0];
  const role = held
    .filter((grant) => grant.organizationId === organizationId)
    .map((grant) => grant.role)
    .reduce((strongest, role) => (ROLES.indexOf(role) > ROLES.indexOf(strongest) ? role : strongest));
  return { organizationId, role };
}
