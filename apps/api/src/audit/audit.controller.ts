import { Controller, Get, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiQuery, ApiTags } from '@nestjs/swagger';
import { z } from 'zod';
import { AUDITED_ACTIONS, type AuditEntry, AuditLogService, type Principal } from '@foresight/auth';
import { CurrentPrincipal, RequireScope } from '../http/access.decorators';
import { openApiSchema, queryInstant, queryInteger, ZodPipe } from '../http/zod';

const auditQuery = z
  .strictObject({
    action: z.enum(AUDITED_ACTIONS).optional(),
    since: queryInstant.optional().describe('inclusive'),
    until: queryInstant.optional().describe('exclusive'),
    limit: queryInteger(1, 1000).default(200),
  })
  .refine(({ since, until }) => since === undefined || until === undefined || since < until, { message: 'since must be before until', path: ['since'] });

const auditEntrySchema = z.object({
  id: z.string(),
  actor: z.enum(['token', 'person', 'cli']).describe('who acted: a token (actorTokenId), a person signed in through single sign-on (actorPerson), or an operator at the CLI'),
  actorTokenId: z.string().nullable().describe('null: a person (actorPerson) or an operator at the CLI'),
  actorPerson: z
    .object({ subject: z.string(), email: z.string().nullable(), name: z.string().nullable() })
    .nullable()
    .describe('the person signed in through single sign-on who acted; null: a token or an operator at the CLI'),
  action: z.enum(AUDITED_ACTIONS),
  target: z.string().nullable().describe('a token, model, webhook or organization id, or user:<keyed hash> (never a user id in clear)'),
  createdAt: z.string(),
});

/** The organization's audit log of admin actions (admin scope). */
@ApiTags('audit')
@ApiBearerAuth()
@RequireScope('admin')
@Controller('audit')
export class AuditController {
  constructor(private readonly audit: AuditLogService) {}

  @Get()
  @ApiOperation({ summary: 'Admin actions, newest first, filtered by action and time' })
  @ApiQuery({ name: 'action', required: false, enum: AUDITED_ACTIONS })
  @ApiQuery({ name: 'since', required: false })
  @ApiQuery({ name: 'until', required: false })
  @ApiQuery({ name: 'limit', required: false, description: '1 to 1000, default 200' })
  @ApiOkResponse({ schema: openApiSchema(z.object({ entries: z.array(auditEntrySchema) })) })
  async list(@CurrentPrincipal() principal: Principal, @Query(new ZodPipe(auditQuery)) query: z.infer<typeof auditQuery>): Promise<{ entries: Array<Omit<AuditEntry, 'organizationId'>> }> {
    const entries = await this.audit.list(principal.organizationId, query.limit, query);
    return { entries: entries.map(({ organizationId: _organizationId, ...entry }) => entry) };
  }
}
