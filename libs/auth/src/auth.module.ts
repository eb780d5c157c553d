import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AuditLogService } from './audit/audit-log.service';
import { Organization } from './organizations/organization.entity';
import { OrganizationsService } from './organizations/organizations.service';
import { RateLimiterService } from './rate-limit/rate-limiter.service';
import { DashboardSessionsService } from './sso/dashboard-sessions.service';
import { OpenIdProviderClient } from './sso/openid-provider.client';
import { SignInAttempts } from './sso/sign-in-attempts';
import { SsoGrantsService } from './sso/sso-grants.service';
import { ApiToken } from './tokens/api-token.entity';
import { TokensService } from './tokens/tokens.service';

@Module({
  imports: [TypeOrmModule.forFeature([Organization, ApiToken])],
  providers: [OrganizationsService, TokensService, RateLimiterService, AuditLogService, OpenIdProviderClient, SignInAttempts, SsoGrantsService, DashboardSessionsService],
  exports: [OrganizationsService, TokensService, RateLimiterService, AuditLogService, OpenIdProviderClient, SignInAttempts, SsoGrantsService, DashboardSessionsService],
})
export class AuthModule {}
