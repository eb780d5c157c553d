import { Controller, Get, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiQuery, ApiTags } from '@nestjs/swagger';
import { z } from 'zod';
import type { Principal } from '@foresight/auth';
import { type CallerUser, EventActivityService, type EventVolume, type IngestionStats, IngestionStatsService, type RecentEvent, UserEventsService, userIdSchema } from '@foresight/events';
import { DAY_MS, notFound } from '@foresight/platform';
import { CurrentPrincipal, RequireScope } from '../http/access.decorators';
import { QueryUser } from '../http/caller-user.pipe';
import { openApiSchema, queryInstant, queryInteger, ZodPipe } from '../http/zod';

/** The longest window per bucket size, so one request never answers more than ~750 buckets. */
const MAX_WINDOW_DAYS = { hour: 31, day: 731 } as const;
const DEFAULT_WINDOW_DAYS = { hour: 2, day: 30 } as const;

/** A window of hour or day buckets: the volume and ingestion routes read the same query. */
const windowQuery = z
  .strictObject({
    bucket: z.enum(['hour', 'day']).default('hour'),
    since: queryInstant.optional().describe('default: 2 days (hour) or 30 days (day) before until'),
    until: queryInstant.optional().describe('default: now'),
  })
  .transform(({ bucket, since, until }) => {
    const end = until ?? new Date();
    return { bucket, until: end, since: since ?? new Date(end.getTime() - DEFAULT_WINDOW_DAYS[bucket] * DAY_MS) };
  })
  .refine(({ since, until }) => since < until, { message: 'since must be before until', path: ['since'] })
  .refine(({ bucket, since, until }) => until.getTime() - since.getTime() <= MAX_WINDOW_DAYS[bucket] * DAY_MS, {
    message: `at most ${MAX_WINDOW_DAYS.hour} days of hours or ${MAX_WINDOW_DAYS.day} days of days`,
    path: ['since'],
  });

const volumeSchema = z.object({
  bucket: z.enum(['hour', 'day']),
  since: z.string(),
  until: z.string(),
  series: z.array(z.object({ start: z.string(), event: z.string(), count: z.number() })).describe('buckets without events are absent'),
  activeUsers: z.array(z.object({ start: z.string(), users: z.number() })),
  totals: z.array(z.object({ event: z.string(), count: z.number() })).describe('most frequent first'),
});

const ingestionSchema = z.object({
  bucket: z.enum(['hour', 'day']),
  since: z.string(),
  until: z.string(),
  series: z
    .array(
      z.object({
        start: z.string(),
        library: z.string().describe('context.library.name of a known SDK, "other" for any other name, "direct" when the request named none, "demo seed" for events the CLI seeded'),
        accepted: z.number().int(),
        duplicates: z.number().int().describe('events whose messageId was already stored'),
        rejected: z.number().int().describe('events refused by validation: whole 400 batches and skipped Segment messages'),
      }),
    )
    .describe('oldest first; buckets where nothing arrived are absent. Hours are kept 32 days, days 732 days'),
});

const recentEventsQuery = z.strictObject({ userId: userIdSchema, limit: queryInteger(1, 500).default(50) });

const recentEventsSchema = z.object({
  userId: z.string(),
  events: z.array(z.object({ event: z.string(), timestamp: z.string(), sessionId: z.string().nullable() })).describe('newest first; names and times only'),
});

/** What the dashboard's overview and user pages read about events (scope read; no event properties). */
@ApiTags('events')
@ApiBearerAuth()
@RequireScope('read')
@Controller()
export class ActivityController {
  constructor(
    private readonly activity: EventActivityService,
    private readonly userEvents: UserEventsService,
    private readonly ingestionStats: IngestionStatsService,
  ) {}

  @Get('events/volume')
  @ApiOperation({ summary: 'Events per hour or day by event name, and active users per bucket' })
  @ApiQuery({ name: 'bucket', required: false, enum: ['hour', 'day'] })
  @ApiQuery({ name: 'since', required: false })
  @ApiQuery({ name: 'until', required: false })
  @ApiOkResponse({ schema: openApiSchema(volumeSchema) })
  volume(@CurrentPrincipal() principal: Principal, @Query(new ZodPipe(windowQuery)) query: z.infer<typeof windowQuery>): Promise<EventVolume> {
    return this.activity.volume(principal.organizationId, query.bucket, query.since, query.until);
  }

  @Get('events/ingestion')
  @ApiOperation({ summary: 'Events accepted, duplicate and rejected per hour or day and sending library, on every ingestion route and the CLI demo seed' })
  @ApiQuery({ name: 'bucket', required: false, enum: ['hour', 'day'] })
  @ApiQuery({ name: 'since', required: false })
  @ApiQuery({ name: 'until', required: false })
  @ApiOkResponse({ schema: openApiSchema(ingestionSchema) })
  ingestion(@CurrentPrincipal() principal: Principal, @Query(new ZodPipe(windowQuery)) query: z.infer<typeof windowQuery>): Promise<IngestionStats> {
    return this.ingestionStats.stats(principal.organizationId, query.bucket, query.since, query.until);
  }

  @Get('users/events')
  @ApiOperation({ summary: "A user's latest events (their own and linked anonymous ones), newest first; 404 when none" })
  @ApiQuery({ name: 'userId', required: true })
  @ApiQuery({ name: 'limit', required: false, description: '1 to 500, default 50' })
  @ApiOkResponse({ schema: openApiSchema(recentEventsSchema) })
  async recentEvents(
    @CurrentPrincipal() principal: Principal,
    @Query(new ZodPipe(recentEventsQuery)) query: z.infer<typeof recentEventsQuery>,
    @QueryUser() user: CallerUser,
  ): Promise<{ userId: string; events: RecentEvent[] }> {
    const events = await this.userEvents.latest(principal.organizationId, user.stored, query.limit);
    if (events.length === 0) throw notFound('user');
    return { userId: user.id, events };
  }
}
