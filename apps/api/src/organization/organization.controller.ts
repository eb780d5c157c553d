import { Body, Controller, Get, Patch, Put } from '@nestjs/common';
import { ApiBearerAuth, ApiBody, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { z } from 'zod';
import { type Organization, OrganizationsService, type Principal, type SsoGrant, ssoGrantSchema, SsoGrantsService } from '@foresight/auth';
import { printableText } from '@foresight/platform';
import { CurrentPrincipal, RequireScope } from '../http/access.decorators';
import { Audited } from '../http/audit.interceptor';
import { openApiSchema, ZodPipe } from '../http/zod';

const organizationSchema = z.object({
  id: z.string(),
  name: z.string(),
  region: z.string(),
  rateLimitPerMinute: z.number().describe('sustained requests per minute per token'),
  burstPerMinute: z.number().describe('most requests one token may make within a minute'),
  hashUserIds: z.boolean().describe('user ids stored as a keyed HMAC; applies to data received from then on'),
  retentionDays: z.number().describe('events and predictions older than this are deleted daily'),
  createdAt: z.string(),
  updatedAt: z.string(),
});

const updateOrganizationSchema = z
  .strictObject({
    name: printableText(200),
    rateLimitPerMinute: z.number().int().min(1).max(1_000_000_000),
    burstPerMinute: z.number().int().min(2).max(2_000_000_000).describe('greater than rateLimitPerMinute'),
    hashUserIds: z.boolean(),
    retentionDays: z.number().int().min(1).max(3650),
  })
  .partial()
  .refine((changes) => Object.keys(changes).length > 0, { message: 'at least one setting to change' });

type OrganizationView = z.infer<typeof organizationSchema>;

/** Most grants one organization holds. */
const MAX_SSO_GRANTS = 500;

const ssoGrantsSchema = z
  .array(ssoGrantSchema)
  .max(MAX_SSO_GRANTS)
  .refine((grants) => new Set(grants.map((grant) => grant.group)).size === grants.length, { message: 'each group at most once' });

const ssoGrantsAnswerSchema = z.object({ organizationId: z.string(), grants: z.array(ssoGrantSchema) });
type SsoGrantsAnswer = z.infer<typeof ssoGrantsAnswerSchema>;

/** The caller's own organization: its limits and privacy settings (admin scope). */
@ApiTags('organization')
@ApiBearerAuth()
@RequireScope('admin')
@Controller('organization')
export class OrganizationController {
  constructor(
    private readonly organizations: OrganizationsService,
    private readonly ssoGrants: SsoGrantsService,
  ) {}

  @Get()
  @ApiOperation({ summary: "The token's organization: rate limit and burst, retention, pseudonymization" })
  @ApiOkResponse({ schema: openApiSchema(organizationSchema) })
  async get(@CurrentPrincipal() principal: Principal): Promise<OrganizationView> {
    return organizationView(await this.organizations.get(principal.organizationId));
  }

  @Patch()
  @Audited('organization.update', { resultField: 'id' })
  @ApiOperation({ summary: 'Change settings; new rate limits apply on every replica within a second, pseudonymization to new data only' })
  @ApiBody({ schema: openApiSchema(updateOrganizationSchema) })
  @ApiOkResponse({ schema: openApiSchema(organizationSchema) })
  async update(
    @CurrentPrincipal() principal: Principal,
    @Body(new ZodPipe(updateOrganizationSchema)) changes: z.infer<typeof updateOrganizationSchema>,
  ): Promise<OrganizationView> {
    return organizationView(await this.organizations.update(principal.organizationId, changes));
  }

  @Get('sso-grants')
  @ApiOperation({ summary: 'Which groups of the identity provider hold which role in this organization (single sign-on)' })
  @ApiOkResponse({ schema: openApiSchema(ssoGrantsAnswerSchema) })
  async getSsoGrants(@CurrentPrincipal() principal: Principal): Promise<SsoGrantsAnswer> {
    return { organizationId: principal.organizationId, grants: await this.ssoGrants.list(principal.organizationId) };
  }

  @Put('sso-grants')
  @Audited('organization.sso-grants', { resultField: 'organizationId' })
  @ApiOperation({ summary: "Replace the organization's single sign-on grants; sessions follow them at their next refresh (OIDC_REFRESH_INTERVAL)" })
  @ApiBody({ schema: openApiSchema(ssoGrantsSchema) })
  @ApiOkResponse({ schema: openApiSchema(ssoGrantsAnswerSchema) })
  async putSsoGrants(@CurrentPrincipal() principal: Principal, @Body(new ZodPipe(ssoGrantsSchema)) grants: SsoGrant[]): Promise<SsoGrantsAnswer> {
    return { organizationId: principal.organizationId, grants: await this.ssoGrants.replace(principal.organizationId, grants) };
  }
}

function organizationView(organization: Organization): OrganizationView {
  return {
    id: organization.id,
    name: organization.name,
    region: organization.region,
    rateLimitPerMinute: organization.rateLimitPerMinute,
    burstPerMinute: organization.burstPerMinute,
    hashUserIds: organization.hashUserIds,
    retentionDays: organization.retentionDays,
    createdAt: organization.createdAt.toISOString(),
    updatedAt: organization.updatedAt.toISOString(),
  };
}
