export { type AuditActor, type AuditEntry, type AuditFilter, AuditLogService } from './audit/audit-log.service';
export { AUDITED_ACTIONS, type AuditedAction } from './audit/audited-actions';
export { AuthModule } from './auth.module';
export { Organization } from './organizations/organization.entity';
export {
  type CreateOrganization,
  OrganizationsService,
  type PrivacySettings,
  type RateLimitSettings,
  type UpdateOrganization,
} from './organizations/organizations.service';
export { RateLimitedError } from './rate-limit/rate-limited.error';
export { RateLimiterService } from './rate-limit/rate-limiter.service';
export type { BucketDecision } from './rate-limit/token-bucket';
export { DashboardSessionsService } from './sso/dashboard-sessions.service';
export { OpenIdProviderClient, type ProviderAnswer } from './sso/openid-provider.client';
export { SignInAttempts } from './sso/sign-in-attempts';
export { type SsoGrant, ssoGrantSchema, SsoGrantsService } from './sso/sso-grants.service';
export { ApiToken } from './tokens/api-token.entity';
export type { Person, PersonPrincipal, Principal, TokenPrincipal } from './tokens/principal';
export { ENVIRONMENTS, isEnvironment, isRole, isScope, type Role, ROLE_SCOPES, ROLES, type RouteScope, type Scope, SCOPES, type TokenEnvironment } from './tokens/scopes';
export { type TokenView, tokenView } from './tokens/token-view';
export { type IssuedToken, type IssueToken, tokenNameSchema, TokensService } from './tokens/tokens.service';
