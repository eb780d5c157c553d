import { Readable } from 'node:stream';
import { Body, Controller, Delete, Get, Headers, HttpCode, Inject, Param, Post, Query, Req, Res } from '@nestjs/common';
import { ApiBearerAuth, ApiBody, ApiOkResponse, ApiOperation, ApiProduces, ApiQuery, ApiTags } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { Principal } from '@foresight/auth';
import { APP_CONFIG, type AppConfig } from '@foresight/platform';
import {
  type AudienceComputation,
  type AudienceDetails,
  AudienceMembersService,
  AudiencesService,
  type AudienceSummary,
  type CreateAudience,
  createAudienceSchema,
  decodeMembersCursor,
  encodeMembersCursor,
  MEMBERS_CSV_HEADER,
  type MembersRead,
} from '@foresight/predictions';
import { CurrentPrincipal, RequireScope } from '../http/access.decorators';
import { Audited } from '../http/audit.interceptor';
import { CSV, jsonArray, lines, NDJSON, nextPageLink } from '../http/streamed-pages';
import { openApiSchema, queryInteger, ZodPipe } from '../http/zod';

const DEFAULT_LIMIT = 10_000;
const MAX_LIMIT = 100_000;

const ruleSchema = z.union([z.object({ minConfidence: z.number() }), z.object({ topPercent: z.number() })]);

const audienceSchema = z.object({
  id: z.string(),
  name: z.string(),
  modelId: z.string(),
  label: z.string(),
  rule: ruleSchema,
  size: z.number().nullable().describe('members after the latest computation; null until the first one ran'),
  computedAt: z.string().nullable(),
  createdAt: z.string(),
});

const computationSchema = z.object({
  runId: z.string().describe('the bulk scoring run that recomputed the audience; the audience id for its first computation'),
  size: z.number(),
  entered: z.number(),
  left: z.number(),
  computedAt: z.string(),
});

const detailsSchema = audienceSchema.extend({
  precision: z.number().nullable().describe("on the serving version's validation set, at the rule's cutoff: the share of the audience that had the label"),
  recall: z.number().nullable().describe('on the validation set, at the cutoff: the share of the users with the label the audience holds'),
  validation: z
    .object({ cutoff: z.number(), share: z.number(), precision: z.number().nullable(), recall: z.number().nullable() })
    .nullable()
    .describe('the validation cutoff used (probability of the label, nearest of the stored curves) and the share of validation users it holds; null without a serving version or its curves'),
  history: z.array(computationSchema).describe('size over time: the latest 100 computations, oldest first'),
});

const memberSchema = z.object({
  userId: z.string(),
  confidence: z.number().describe('probability of the label in the latest prediction'),
  since: z.string().describe('when the user entered the audience'),
});

const membersQuery = z.strictObject({
  limit: queryInteger(1, MAX_LIMIT).default(DEFAULT_LIMIT),
  cursor: z.string().min(1).max(200).optional().describe('from the Link header of the previous page'),
});

type MembersQuery = z.infer<typeof membersQuery>;
type AudienceView = z.infer<typeof audienceSchema>;
type AudienceDetailsView = z.infer<typeof detailsSchema>;

@ApiTags('audiences')
@ApiBearerAuth()
@Controller('audiences')
export class AudiencesController {
  constructor(
    private readonly audiences: AudiencesService,
    private readonly members: AudienceMembersService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  @Post()
  @HttpCode(200)
  @RequireScope('manage')
  @Audited('audience.create', { resultField: 'id' })
  @ApiOperation({ summary: "Define an audience: a model, one of its labels and a rule; members are computed right after, then with each bulk scoring run" })
  @ApiBody({ schema: openApiSchema(createAudienceSchema) })
  @ApiOkResponse({ schema: openApiSchema(audienceSchema) })
  async create(@CurrentPrincipal() principal: Principal, @Body(new ZodPipe(createAudienceSchema)) body: CreateAudience): Promise<AudienceView> {
    return view(await this.audiences.create(principal.organizationId, body));
  }

  @Get()
  @RequireScope('read')
  @ApiOperation({ summary: "The organization's audiences with their latest size" })
  @ApiOkResponse({ schema: openApiSchema(z.array(audienceSchema)) })
  async list(@CurrentPrincipal() principal: Principal): Promise<AudienceView[]> {
    return (await this.audiences.list(principal.organizationId)).map(view);
  }

  @Get(':audienceId')
  @RequireScope('read')
  @ApiOperation({ summary: 'An audience with its size, validation precision and recall at its cutoff, and its size over time' })
  @ApiOkResponse({ schema: openApiSchema(detailsSchema) })
  async get(@CurrentPrincipal() principal: Principal, @Param('audienceId') audienceId: string): Promise<AudienceDetailsView> {
    return detailsView(await this.audiences.get(principal.organizationId, audienceId));
  }

  @Delete(':audienceId')
  @RequireScope('manage')
  @Audited('audience.delete', { param: 'audienceId' })
  @ApiOperation({ summary: 'Remove an audience, its members and its history' })
  @ApiOkResponse({ schema: openApiSchema(z.object({ status: z.literal('deleted'), audienceId: z.string() })) })
  async remove(@CurrentPrincipal() principal: Principal, @Param('audienceId') audienceId: string): Promise<{ status: 'deleted'; audienceId: string }> {
    await this.audiences.remove(principal.organizationId, audienceId);
    return { status: 'deleted', audienceId };
  }

  @Get(':audienceId/members')
  @RequireScope('read')
  @ApiOperation({
    summary: 'The current members, streamed',
    description: `A JSON array of up to \`limit\` members with a \`Link: <…>; rel="next"\` header while members remain; with \`Accept: ${NDJSON}\` (one JSON object per line) or \`Accept: ${CSV}\` (a header line, then one line per member), every member from the cursor on.`,
  })
  @ApiProduces('application/json', NDJSON, CSV)
  @ApiQuery({ name: 'limit', required: false, description: `default ${DEFAULT_LIMIT}, at most ${MAX_LIMIT}; ignored for NDJSON and CSV` })
  @ApiQuery({ name: 'cursor', required: false })
  @ApiOkResponse({ schema: openApiSchema(z.array(memberSchema)) })
  async membersOf(
    @CurrentPrincipal() principal: Principal,
    @Param('audienceId') audienceId: string,
    @Query(new ZodPipe(membersQuery)) query: MembersQuery,
    @Headers('accept') accept: string | undefined,
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    const read: MembersRead = { organizationId: principal.organizationId, audienceId, from: query.cursor === undefined ? undefined : decodeMembersCursor(query.cursor) };
    await this.audiences.find(principal.organizationId, audienceId);
    if (accept?.includes(NDJSON)) {
      await reply.type(NDJSON).send(Readable.from(lines(this.members.batches(read, 'ndjson'))));
      return;
    }
    if (accept?.includes(CSV)) {
      await reply.type(`${CSV}; charset=utf-8`).send(Readable.from(lines(this.members.batches(read, 'csv'), MEMBERS_CSV_HEADER)));
      return;
    }
    const next = await this.members.nextPageStart(read, query.limit);
    if (next) {
      const params = new URLSearchParams({ limit: String(query.limit), cursor: encodeMembersCursor(next) });
      void reply.header('link', nextPageLink(this.config.http.publicUrl, request, params));
    }
    await reply.type('application/json').send(Readable.from(jsonArray(this.members.batches(read, 'json-array', query.limit))));
  }
}

function view({ audience, rule, latest }: AudienceSummary): AudienceView {
  return {
    id: audience.id,
    name: audience.name,
    modelId: audience.modelId,
    label: audience.label,
    rule,
    size: latest?.size ?? null,
    computedAt: latest?.computedAt.toISOString() ?? null,
    createdAt: audience.createdAt.toISOString(),
  };
}

function detailsView(details: AudienceDetails): AudienceDetailsView {
  return {
    ...view(details),
    precision: details.validation?.precision ?? null,
    recall: details.validation?.recall ?? null,
    validation: details.validation,
    history: details.history.map(computationView),
  };
}

function computationView(computation: AudienceComputation): z.infer<typeof computationSchema> {
  return { ...computation, computedAt: computation.computedAt.toISOString() };
}
