import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { ApiBearerAuth, ApiBody, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { z } from 'zod';
import type { Principal } from '@foresight/auth';
import { eventSchema, IngestService, segmentLibrary, SegmentMetrics, segmentToEvents, validateEachEvent, type IngestResult, type SegmentCall } from '@foresight/events';
import { CurrentPrincipal, RequireScope, SegmentCompatible } from '../http/access.decorators';
import { openApiSchema } from '../http/zod';

const ingestResultSchema = z.object({
  status: z.literal('accepted'),
  accepted: z.number().int().describe('events stored by this request'),
  duplicates: z.number().int().describe('events whose messageId was already stored'),
  suppressed: z.number().int().describe('events of users erased with suppress=true: acknowledged, not stored'),
});

type SegmentResult = IngestResult & { rejected: number };

const segmentBody = { schema: { type: 'object', description: 'A Segment message (https://segment.com/docs/connections/spec/)' } };

@ApiTags('events')
@ApiBearerAuth()
@RequireScope('ingest')
@Controller()
export class EventsController {
  constructor(
    private readonly ingest: IngestService,
    private readonly metrics: SegmentMetrics,
  ) {}

  @Post('events')
  @HttpCode(200)
  @ApiOperation({ summary: 'Send one event or a batch of up to 1,000; answered after they are durable' })
  @ApiBody({ schema: openApiSchema(z.union([eventSchema, z.array(eventSchema).max(1000)])) })
  @ApiOkResponse({ schema: openApiSchema(ingestResultSchema) })
  events(@CurrentPrincipal() principal: Principal, @Body() body: unknown): Promise<IngestResult> {
    return this.ingest.ingest(principal.organizationId, body);
  }

  @Post('batch')
  @HttpCode(200)
  @SegmentCompatible()
  @ApiOperation({ summary: "Segment-compatible batch (also accepts Basic auth with the token as user name, or the body's writeKey)" })
  @ApiBody(segmentBody)
  batch(@CurrentPrincipal() principal: Principal, @Body() body: unknown): Promise<SegmentResult> {
    return this.segment(principal, 'batch', 'batch', body);
  }

  @Post('b')
  @HttpCode(200)
  @SegmentCompatible()
  @ApiOperation({ summary: "Segment-compatible batch at the path of Segment's mobile SDKs (`<apiHost>/b`)" })
  @ApiBody(segmentBody)
  b(@CurrentPrincipal() principal: Principal, @Body() body: unknown): Promise<SegmentResult> {
    return this.segment(principal, 'b', 'batch', body);
  }

  @Post('track')
  @HttpCode(200)
  @SegmentCompatible()
  @ApiOperation({ summary: "Segment-compatible track" })
  @ApiBody(segmentBody)
  track(@CurrentPrincipal() principal: Principal, @Body() body: unknown): Promise<SegmentResult> {
    return this.segment(principal, 'track', 'track', body);
  }

  @Post('identify')
  @HttpCode(200)
  @SegmentCompatible()
  @ApiOperation({ summary: "Segment-compatible identify: links anonymousId to userId (traits are not stored)" })
  @ApiBody(segmentBody)
  identify(@CurrentPrincipal() principal: Principal, @Body() body: unknown): Promise<SegmentResult> {
    return this.segment(principal, 'identify', 'identify', body);
  }

  @Post('page')
  @HttpCode(200)
  @SegmentCompatible()
  @ApiOperation({ summary: "Segment-compatible page (stored as page_view)" })
  @ApiBody(segmentBody)
  page(@CurrentPrincipal() principal: Principal, @Body() body: unknown): Promise<SegmentResult> {
    return this.segment(principal, 'page', 'page', body);
  }

  @Post('screen')
  @HttpCode(200)
  @SegmentCompatible()
  @ApiOperation({ summary: "Segment-compatible screen (stored as screen_view; the name from name, properties.name or event)" })
  @ApiBody(segmentBody)
  screen(@CurrentPrincipal() principal: Principal, @Body() body: unknown): Promise<SegmentResult> {
    return this.segment(principal, 'screen', 'screen', body);
  }

  @Post('alias')
  @HttpCode(200)
  @SegmentCompatible()
  @ApiOperation({ summary: "Segment-compatible alias: links previousId to userId (stored as an alias event)" })
  @ApiBody(segmentBody)
  alias(@CurrentPrincipal() principal: Principal, @Body() body: unknown): Promise<SegmentResult> {
    return this.segment(principal, 'alias', 'alias', body);
  }

  @Post('group')
  @HttpCode(200)
  @SegmentCompatible()
  @ApiOperation({ summary: "Segment-compatible group (stored as a group event with its groupId; traits are not stored)" })
  @ApiBody(segmentBody)
  group(@CurrentPrincipal() principal: Principal, @Body() body: unknown): Promise<SegmentResult> {
    return this.segment(principal, 'group', 'group', body);
  }

  /** Not all-or-nothing (CONTRACT.md): valid messages are stored, invalid ones skipped and counted. */
  private async segment(principal: Principal, route: string, call: SegmentCall | 'batch', body: unknown): Promise<SegmentResult> {
    const { events, rejected } = validateEachEvent(segmentToEvents(call, body));
    const result = { ...(await this.ingest.ingestEvents(principal.organizationId, events)), rejected };
    this.metrics.received(route, segmentLibrary(body), result);
    return result;
  }
}
