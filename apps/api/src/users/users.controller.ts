import { Controller, Delete, Get, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiQuery, ApiTags } from '@nestjs/swagger';
import { z } from 'zod';
import type { Principal } from '@foresight/auth';
import { type CallerUser, type Session, SessionsService, userIdSchema, UserIdsService } from '@foresight/events';
import { type ErasureRecord, ErasureRecordsService, PrivacyService, type UserExport } from '@foresight/privacy';
import { CurrentPrincipal, RequireScope } from '../http/access.decorators';
import { Audited } from '../http/audit.interceptor';
import { QueryUser } from '../http/caller-user.pipe';
import { openApiSchema, queryInstant, queryInteger, ZodPipe } from '../http/zod';

const sessionsQuery = z.object({
  userId: userIdSchema,
  since: queryInstant.optional(),
  until: queryInstant.optional(),
});

const exportQuery = z.strictObject({ userId: userIdSchema });

const deleteQuery = z.strictObject({
  userId: userIdSchema,
  suppress: z.enum(['true', 'false']).default('false').describe("also drop the user's future events at ingestion"),
});

const erasuresQuery = z.strictObject({
  userId: userIdSchema.optional().describe("only this user's requests (matched by keyed hash; the id is not stored)"),
  limit: queryInteger(1, 500).default(100),
});

const unsuppressQuery = z.strictObject({ userId: userIdSchema });

const erasureSchema = z.object({
  id: z.string(),
  userHash: z.string().describe('keyed hash of the erased user; the id itself is not kept'),
  status: z.enum(['pending', 'confirmed']).describe('confirmed once a sweep found nothing left in any store'),
  requestedAt: z.string(),
  confirmedAt: z.string().nullable(),
  attempts: z.number().describe('sweeps run so far'),
  erased: z.record(z.string(), z.number()).describe('rows removed per store'),
});

const sessionSchema = z.object({
  sessionId: z.string(),
  derived: z.boolean().describe('no client sessionId: cut after 30 minutes of inactivity'),
  startedAt: z.string(),
  endedAt: z.string(),
  durationMs: z.number(),
  eventCount: z.number(),
});

const exportSchema = z
  .object({
    userId: z.string(),
    exportedAt: z.string(),
    events: z.array(z.record(z.string(), z.unknown())).describe('properties and context decrypted'),
    predictions: z.array(z.record(z.string(), z.unknown())),
    sessions: z.array(sessionSchema),
  })
  .catchall(z.array(z.unknown()).describe("one more array per personal-data store (identities, queued notifications, …)"));

@ApiTags('users')
@ApiBearerAuth()
@Controller('users')
export class UsersController {
  constructor(
    private readonly sessions: SessionsService,
    private readonly privacy: PrivacyService,
    private readonly erasures: ErasureRecordsService,
    private readonly userIds: UserIdsService,
  ) {}

  @Get('sessions')
  @RequireScope('read')
  @ApiOperation({ summary: "A user's sessions (their own and linked anonymous activity), oldest first" })
  @ApiQuery({ name: 'userId', required: true })
  @ApiQuery({ name: 'since', required: false })
  @ApiQuery({ name: 'until', required: false })
  @ApiOkResponse({ schema: openApiSchema(z.object({ userId: z.string(), sessions: z.array(sessionSchema) })) })
  async listSessions(
    @CurrentPrincipal() principal: Principal,
    @Query(new ZodPipe(sessionsQuery)) { since, until }: z.infer<typeof sessionsQuery>,
    @QueryUser() user: CallerUser,
  ): Promise<{ userId: string; sessions: Session[] }> {
    return { userId: user.id, sessions: await this.sessions.listForUser(principal.organizationId, user.stored, since, until) };
  }

  @Get('export')
  @RequireScope('admin')
  @Audited('user.export', 'queryUser')
  @ApiOperation({ summary: 'Everything stored about a user, from every store; 404 when nothing is' })
  @ApiQuery({ name: 'userId', required: true })
  @ApiOkResponse({ schema: openApiSchema(exportSchema) })
  async export(
    @CurrentPrincipal() principal: Principal,
    @Query(new ZodPipe(exportQuery)) _query: z.infer<typeof exportQuery>,
    @QueryUser() user: CallerUser,
  ): Promise<UserExport & { userId: string }> {
    return { userId: user.id, ...(await this.privacy.export(principal.organizationId, user)) };
  }

  @Delete()
  @RequireScope('admin')
  @Audited('user.delete', 'queryUser')
  @ApiOperation({
    summary: "Erase a user's data from every store before answering; a sweep job then re-checks until it confirms. 404 when nothing is stored",
  })
  @ApiQuery({ name: 'userId', required: true })
  @ApiQuery({ name: 'suppress', required: false, enum: ['true', 'false'] })
  @ApiOkResponse({ schema: openApiSchema(z.object({ status: z.literal('deleted'), userId: z.string() })) })
  async erase(
    @CurrentPrincipal() principal: Principal,
    @Query(new ZodPipe(deleteQuery)) query: z.infer<typeof deleteQuery>,
    @QueryUser() user: CallerUser,
  ): Promise<{ status: 'deleted'; userId: string }> {
    await this.privacy.erase(principal.organizationId, user, { suppress: query.suppress === 'true' });
    return { status: 'deleted', userId: user.id };
  }

  @Get('erasures')
  @RequireScope('admin')
  @ApiOperation({ summary: 'Erasure requests, newest first: pending until the sweep confirms no store holds the user' })
  @ApiQuery({ name: 'userId', required: false })
  @ApiQuery({ name: 'limit', required: false, description: '1 to 500, default 100' })
  @ApiOkResponse({ schema: openApiSchema(z.object({ erasures: z.array(erasureSchema) })) })
  async listErasures(
    @CurrentPrincipal() principal: Principal,
    @Query(new ZodPipe(erasuresQuery)) query: z.infer<typeof erasuresQuery>,
    @QueryUser() user: CallerUser | undefined,
  ): Promise<{ erasures: Array<Omit<ErasureRecord, 'organizationId'>> }> {
    const userHashes = user === undefined ? undefined : this.userIds.userHashes(principal.organizationId, user.id);
    const erasures = await this.erasures.list(principal.organizationId, { userHashes, limit: query.limit });
    return { erasures: erasures.map(({ organizationId: _organizationId, ...erasure }) => erasure) };
  }

  @Delete('suppression')
  @RequireScope('admin')
  @Audited('user.unsuppress', 'queryUser')
  @ApiOperation({ summary: "Accept a suppressed user's events again (erased earlier with suppress=true); unsuppressed is false when the user was not suppressed" })
  @ApiQuery({ name: 'userId', required: true })
  @ApiOkResponse({ schema: openApiSchema(z.object({ userId: z.string(), unsuppressed: z.boolean() })) })
  async unsuppress(
    @CurrentPrincipal() principal: Principal,
    @Query(new ZodPipe(unsuppressQuery)) _query: z.infer<typeof unsuppressQuery>,
    @QueryUser() user: CallerUser,
  ): Promise<{ userId: string; unsuppressed: boolean }> {
    return { userId: user.id, unsuppressed: await this.privacy.unsuppress(principal.organizationId, user) };
  }
}
