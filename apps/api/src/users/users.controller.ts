import { Controller, Get, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiQuery, ApiTags } from '@nestjs/swagger';
import { z } from 'zod';
import type { Principal } from '@foresight/auth';
import { SessionsService, type Session } from '@foresight/events';
import { CurrentPrincipal, RequireScope } from '../http/access.decorators';
import { openApiSchema, ZodPipe } from '../http/zod';

const sessionsQuery = z.object({
  userId: z.string().min(1).max(255),
  since: z.iso.datetime({ offset: true }).optional(),
  until: z.iso.datetime({ offset: true }).optional(),
});

const sessionSchema = z.object({
  sessionId: z.string(),
  derived: z.boolean().describe('no client sessionId: cut after 30 minutes of inactivity'),
  startedAt: z.string(),
  endedAt: z.string(),
  durationMs: z.number(),
  eventCount: z.number(),
});

@ApiTags('users')
@ApiBearerAuth()
@Controller('users')
export class UsersController {
  constructor(private readonly sessions: SessionsService) {}

  @Get('sessions')
  @RequireScope('read')
  @ApiOperation({ summary: "A user's sessions (their own and linked anonymous activity), oldest first" })
  @ApiQuery({ name: 'userId', required: true })
  @ApiQuery({ name: 'since', required: false })
  @ApiQuery({ name: 'until', required: false })
  @ApiOkResponse({ schema: openApiSchema(z.object({ userId: z.string(), sessions: z.array(sessionSchema) })) })
  async listSessions(
    @CurrentPrincipal() principal: Principal,
    @Query(new ZodPipe(sessionsQuery)) query: z.infer<typeof sessionsQuery>,
  ): Promise<{ userId: string; sessions: Session[] }> {
    const since = query.since ? new Date(query.since) : undefined;
    const until = query.until ? new Date(query.until) : undefined;
    return { userId: query.userId, sessions: await this.sessions.listForUser(principal.organizationId, query.userId, since, until) };
  }
}
