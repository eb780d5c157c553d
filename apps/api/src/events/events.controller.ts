import { applyDecorators, Body, Controller, HttpCode, Post } from '@nestjs/common';
import { ApiBearerAuth, ApiBody, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { z } from 'zod';
import type { Principal } from '@foresight/auth';
import { eventSchema, type IngestResult, IngestService, type SegmentCall, type SegmentIngestResult, SegmentMetricsService, sendingLibrary } from '@foresight/events';
import { CurrentPrincipal, RequireScope, SegmentCompatible } from '../http/access.decorators';
import { openApiSchema } from '../http/zod';

const ingestResultSchema = z.object({
  status: z.literal('accepted'),
  accepted: z.number().int().describe('events stored by this request'),
  duplicates: z.number().int().describe('events whose messageId was already stored'),
  suppressed: z.number().int().describe('events of users erased with suppress=true: acknowledged, not stored'),
});

const segmentResultSchema = ingestResultSchema.extend({
  rejected: z.number().int().describe('invalid messages, skipped (the others are stored)'),
});

/**
 * A Segment-compatible route: Basic, Bearer or body writeKey; answered 200 with the counts.
 * Each call type is also served at its first letter (`/v1/t`, `/v1/p`, …): analytics.js (analytics-next)
 * posts to `<apiHost>/<type.charAt(0)>` unless its settings ask for batching (plugins/segmentio/index.js).
 */
const SegmentRoute = (paths: string | string[], summary: string): MethodDecorator =>
  applyDecorators(
    Post(paths),
    HttpCode(200),
    SegmentCompatible(),
    ApiOperation({ summary }),
    ApiBody({ schema: { type: 'object', description: 'A Segment message, or {batch: [messages]} (https://segment.com/docs/connections/spec/)' } }),
    ApiOkResponse({ schema: openApiSchema(segmentResultSchema) }),
  );

@ApiTags('events')
@ApiBearerAuth()
@RequireScope('ingest')
@Controller()
export class EventsController {
  constructor(
    private readonly ingest: IngestService,
    private readonly metrics: SegmentMetricsService,
  ) {}

  @Post('events')
  @HttpCode(200)
  @ApiOperation({ summary: 'Send one event or a batch of up to 1,000; answered after they are durable' })
  @ApiBody({ schema: openApiSchema(z.union([eventSchema, z.array(eventSchema).max(1000)])) })
  @ApiOkResponse({ schema: openApiSchema(ingestResultSchema) })
  events(@CurrentPrincipal() principal: Principal, @Body() body: unknown): Promise<IngestResult> {
    return this.ingest.ingest(principal.organizationId, body);
  }

  @SegmentRoute('batch', "Segment-compatible batch (also accepts Basic auth with the token as user name, or the body's writeKey)")
  batch(@CurrentPrincipal() principal: Principal, @Body() body: unknown): Promise<SegmentIngestResult> {
    return this.segment(principal, 'batch', 'batch', body);
  }

  @SegmentRoute('b', "Segment-compatible batch at the path of Segment's mobile SDKs (`<apiHost>/b`)")
  b(@CurrentPrincipal() principal: Principal, @Body() body: unknown): Promise<SegmentIngestResult> {
    return this.segment(principal, 'b', 'batch', body);
  }

  @SegmentRoute(['track', 't'], 'Segment-compatible track')
  track(@CurrentPrincipal() principal: Principal, @Body() body: unknown): Promise<SegmentIngestResult> {
    return this.segment(principal, 'track', 'track', body);
  }

  @SegmentRoute(['identify', 'i'], 'Segment-compatible identify: links anonymousId to userId (traits are not stored)')
  identify(@CurrentPrincipal() principal: Principal, @Body() body: unknown): Promise<SegmentIngestResult> {
    return this.segment(principal, 'identify', 'identify', body);
  }

  @SegmentRoute(['page', 'p'], 'Segment-compatible page (stored as page_view)')
  page(@CurrentPrincipal() principal: Principal, @Body() body: unknown): Promise<SegmentIngestResult> {
    return this.segment(principal, 'page', 'page', body);
  }

  @SegmentRoute(['screen', 's'], 'Segment-compatible screen (stored as screen_view; the name from name, properties.name or event)')
  screen(@CurrentPrincipal() principal: Principal, @Body() body: unknown): Promise<SegmentIngestResult> {
    return this.segment(principal, 'screen', 'screen', body);
  }

  @SegmentRoute(['alias', 'a'], 'Segment-compatible alias: links previousId to userId (stored as an alias event)')
  alias(@CurrentPrincipal() principal: Principal, @Body() body: unknown): Promise<SegmentIngestResult> {
    return this.segment(principal, 'alias', 'alias', body);
  }

  @SegmentRoute(['group', 'g'], 'Segment-compatible group (stored as a group event with its groupId; traits are not stored)')
  group(@CurrentPrincipal() principal: Principal, @Body() body: unknown): Promise<SegmentIngestResult> {
    return this.segment(principal, 'group', 'group', body);
  }

  /** Not all-or-nothing: valid messages are stored, invalid ones skipped and counted. */
  private async segment(principal: Principal, route: string, call: SegmentCall | 'batch', body: unknown): Promise<SegmentIngestResult> {
    const result = await this.ingest.ingestSegment(principal.organizationId, call, body);
    this.metrics.received(route, sendingLibrary(body), result);
    return result;
  }
}
