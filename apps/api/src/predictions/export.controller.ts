import { Readable } from 'node:stream';
import { Controller, Get, Headers, Inject, Query, Req, Res } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiProduces, ApiQuery, ApiTags } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { Principal } from '@foresight/auth';
import { APP_CONFIG, type AppConfig, printableText } from '@foresight/platform';
import { decodeCursor, encodeCursor, type ExportFilter, PredictionExportService } from '@foresight/predictions';
import { CurrentPrincipal, RequireScope } from '../http/access.decorators';
import { jsonArray, lines, NDJSON, nextPageLink } from '../http/streamed-pages';
import { openApiSchema, queryDay, queryInteger, ZodPipe } from '../http/zod';
import { valueEstimateFields } from './value-estimate.schema';

const DEFAULT_LIMIT = 10_000;
const MAX_LIMIT = 100_000;

const exportQuery = z
  .strictObject({
    since: queryDay.describe('first day (UTC, inclusive)'),
    until: queryDay.optional().describe('last day (UTC, exclusive)'),
    model: printableText(64).optional().describe('model name'),
    limit: queryInteger(1, MAX_LIMIT).default(DEFAULT_LIMIT),
    cursor: z.string().min(1).max(200).optional().describe('from the Link header of the previous page'),
  })
  .refine((q) => q.until === undefined || q.until > q.since, { message: 'until must be after since', path: ['until'] });

type ExportQuery = z.infer<typeof exportQuery>;

const exportedPredictionSchema = z.object({
  id: z.string(),
  userId: z.string(),
  model: z.string(),
  modelId: z.string(),
  version: z.number().int(),
  label: z.string(),
  confidence: z.number(),
  ...valueEstimateFields,
  timestamp: z.string(),
});

@ApiTags('predictions')
@ApiBearerAuth()
@Controller('export')
export class ExportController {
  constructor(
    private readonly exports: PredictionExportService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  @Get('predictions')
  @RequireScope('read')
  @ApiOperation({
    summary: 'Logged predictions sorted by timestamp then id, streamed',
    description: `A JSON array of up to \`limit\` rows with a \`Link: <…>; rel="next"\` header while rows remain; with \`Accept: ${NDJSON}\`, every row, one JSON object per line.`,
  })
  @ApiProduces('application/json', NDJSON)
  @ApiQuery({ name: 'since', required: true, example: '2026-11-01' })
  @ApiQuery({ name: 'until', required: false })
  @ApiQuery({ name: 'model', required: false })
  @ApiQuery({ name: 'limit', required: false, description: `default ${DEFAULT_LIMIT}, at most ${MAX_LIMIT}; ignored for NDJSON` })
  @ApiQuery({ name: 'cursor', required: false })
  @ApiOkResponse({ schema: openApiSchema(z.array(exportedPredictionSchema)) })
  async predictions(
    @CurrentPrincipal() principal: Principal,
    @Query(new ZodPipe(exportQuery)) query: ExportQuery,
    @Headers('accept') accept: string | undefined,
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    const filter: ExportFilter = {
      organizationId: principal.organizationId,
      since: query.since,
      until: query.until,
      model: query.model,
      from: query.cursor === undefined ? undefined : decodeCursor(query.cursor),
    };
    if (accept?.includes(NDJSON)) {
      await reply.type(NDJSON).send(Readable.from(lines(this.exports.batches(filter, 'ndjson'))));
      return;
    }
    const next = await this.exports.nextPageStart(filter, query.limit);
    if (next) void reply.header('link', nextPageLink(this.config.http.publicUrl, request, nextPageQuery(query, encodeCursor(next))));
    await reply.type('application/json').send(Readable.from(jsonArray(this.exports.batches(filter, 'json-array', query.limit))));
  }
}

/** The page's query with the next page's cursor. */
function nextPageQuery(query: ExportQuery, cursor: string): URLSearchParams {
  const params = new URLSearchParams({ since: day(query.since) });
  if (query.until) params.set('until', day(query.until));
  if (query.model) params.set('model', query.model);
  params.set('limit', String(query.limit));
  params.set('cursor', cursor);
  return params;
}

function day(date: Date): string {
  return date.toISOString().slice(0, 10);
}
