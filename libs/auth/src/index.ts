export { AuthModule } from './auth.module';
export { Organization } from './organizations/organization.entity';
export {
  OrganizationsService,
  type CreateOrganization,
  type UpdateOrganization,
  type RateLimitSettings,
  type PrivacySettings,
} from './organizations/organizations.service';
export { RateLimiterService } from './rate-limit/rate-limiter.service';
export type { BucketDecision } from './rate-limit/token-bucket';
export { ApiToken } from './tokens/api-token.entity';
export type { Principal } from './tokens/principal';
export { SCOPES, ENVIRONMENTS, isScope, isEnvironment, type Scope, type TokenEnvironment } from './tokens/scopes';
export { TokensService, type IssueToken, type IssuedToken } from './tokens/tokens.service';
export { RateLimitedError } from './rate-limit/rate-limited.error';
export { tokenView, type TokenView } from './tokens/token-view';
export { AuditLogService, AUDITED_ACTIONS, type AuditedAction, type AuditEntry } from './audit/audit-log.service';
