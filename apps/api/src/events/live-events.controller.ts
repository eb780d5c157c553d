import { Controller, Get, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiQuery, ApiTags } from '@nestjs/swagger';
import { z } from 'zod';
import type { Principal } from '@foresight/auth';
import { type LiveEventsPage, LiveEventsService } from '@foresight/events';
import { CurrentPrincipal, RequireScope } from '../http/access.decorators';
import { openApiSchema, queryInteger, ZodPipe } from '../http/zod';

const liveQuery = z.strictObject({
  after: z.string().min(1).max(512).optional().describe('the cursor of the previous answer: only events that arrived since'),
  limit: queryInteger(1, 200).default(50),
});

const liveSchema = z.object({
  events: z
    .array(
      z.object({
        messageId: z.string(),
        event: z.string(),
        userId: z.string().nullable().describe('as stored: a keyed hash for pseudonymizing organizations'),
        anonymousId: z.string().nullable(),
        sessionId: z.string().nullable(),
        timestamp: z.string(),
        receivedAt: z.string(),
        library: z.string().nullable().describe("the sender's context.library.name; null for direct API calls"),
        properties: z.record(z.string(), z.unknown()).nullable().optional().describe('admin tokens only'),
      }),
    )
    .describe('newest first; events show about two seconds after they arrive'),
  cursor: z.string().nullable(),
});

/** The organization's events as they arrive (scope read; property values for admin tokens only). */
@ApiTags('events')
@ApiBearerAuth()
@RequireScope('read')
@Controller('events')
export class LiveEventsController {
  constructor(private readonly live: LiveEventsService) {}

  @Get('live')
  @ApiOperation({ summary: 'The latest events in arrival order; poll with the returned cursor to get only new ones' })
  @ApiQuery({ name: 'after', required: false })
  @ApiQuery({ name: 'limit', required: false, description: '1 to 200, default 50' })
  @ApiOkResponse({ schema: openApiSchema(liveSchema) })
  read(@CurrentPrincipal() principal: Principal, @Query(new ZodPipe(liveQuery)) query: z.infer<typeof liveQuery>): Promise<LiveEventsPage> {
    return this.live.read(principal.organizationId, { after: query.after, limit: query.limit, withProperties: principal.scopes.includes('admin') });
  }
}
