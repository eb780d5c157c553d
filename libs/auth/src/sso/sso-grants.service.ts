import { Injectable } from '@nestjs/common';
import { z } from 'zod';
import { printableText, SqlExecutor } from '@foresight/platform';
import { type Role, ROLES } from '../tokens/scopes';
import { DELETE_SSO_GRANT, DELETE_SSO_GRANTS, SSO_GRANT_FOR_GROUPS, SSO_GRANTS_OF_ORGANIZATION, SSO_ROLE_IN_ORGANIZATION, UPSERT_SSO_GRANTS } from './sso-grants.sql';

/** A group of the identity provider granted a role in an organization, as the API and the CLI take it. */
export const ssoGrantSchema = z.strictObject({
  group: printableText(256).describe("a value of the provider's groups claim (OIDC_GROUPS_CLAIM)"),
  role: z.enum(ROLES),
});
export type SsoGrant = z.infer<typeof ssoGrantSchema>;

export interface GrantedRole {
  readonly organizationId: string;
  readonly role: Role;
}

/** Which groups hold which role in an organization, set by its admin (CONTRACT.md "Dashboard"). */
@Injectable()
export class SsoGrantsService {
  constructor(private readonly sql: SqlExecutor) {}

  async list(organizationId: string): Promise<SsoGrant[]> {
    const rows = await this.sql.rows(SSO_GRANTS_OF_ORGANIZATION, [organizationId]);
    return rows.map((row) => ({ group: row.group_name, role: row.role }));
  }

  /** The organization's grants become exactly these. */
  async replace(organizationId: string, grants: readonly SsoGrant[]): Promise<SsoGrant[]> {
    await this.sql.transaction(async (tx) => {
      await tx.affected(DELETE_SSO_GRANTS, [organizationId]);
      await tx.affected(UPSERT_SSO_GRANTS, [organizationId, grants.map((grant) => grant.group), grants.map((grant) => grant.role)]);
    });
    return this.list(organizationId);
  }

  /** Grants one group a role (replacing its role there, if it held one). */
  async grant(organizationId: string, grant: SsoGrant): Promise<void> {
    await this.sql.affected(UPSERT_SSO_GRANTS, [organizationId, [grant.group], [grant.role]]);
  }

  /** Whether the group held a grant there. */
  async revoke(organizationId: string, group: string): Promise<boolean> {
    return (await this.sql.affected(DELETE_SSO_GRANT, [organizationId, group])) > 0;
  }

  /** At sign-in: the organization where the groups hold the strongest role (then the oldest), or null. */
  async grantFor(groups: readonly string[]): Promise<GrantedRole | null> {
    if (groups.length === 0) return null;
    const row = await this.sql.first(SSO_GRANT_FOR_GROUPS, [[...groups]]);
    return row ? { organizationId: row.organization_id, role: row.role } : null;
  }

  /** At each refresh: the strongest role the groups hold in the session's organization, or null. */
  async roleIn(organizationId: string, groups: readonly string[]): Promise<Role | null> {
    if (groups.length === 0) return null;
    return (await this.sql.first(SSO_ROLE_IN_ORGANIZATION, [organizationId, [...groups]]))?.role ?? null;
  }
}
