import { Body, Controller, Delete, Get, HttpCode, Param, Post } from '@nestjs/common';
import { ApiBearerAuth, ApiBody, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { z } from 'zod';
import { ENVIRONMENTS, type Principal, SCOPES, tokenNameSchema, TokensService, type TokenView, tokenView } from '@foresight/auth';
import { CurrentPrincipal, RequireScope } from '../http/access.decorators';
import { Audited } from '../http/audit.interceptor';
import { openApiSchema, ZodPipe } from '../http/zod';

const createTokenSchema = z.strictObject({
  name: tokenNameSchema.optional().describe('what the token is for, so people can tell tokens apart (1 to 100 printable characters)'),
  environment: z.enum(ENVIRONMENTS),
  scopes: z.array(z.enum(SCOPES)).min(1),
  expiresInDays: z.number().int().min(1).max(3650).optional(),
});

/** Documents TokenView of @foresight/auth in the OpenAPI document. */
const tokenViewSchema = z.object({
  id: z.string(),
  name: z.string().nullable().describe('given at creation; null when none was'),
  organizationId: z.string(),
  environment: z.enum(ENVIRONMENTS),
  scopes: z.array(z.enum(SCOPES)),
  hint: z.string().describe('last four characters of the secret'),
  createdAt: z.string(),
  expiresAt: z.string().nullable(),
  revokedAt: z.string().nullable(),
  lastUsedAt: z.string().nullable().describe('last authenticated request, to the minute; null if never used'),
});

/** Token management for the caller's own organization (admin scope). */
@ApiTags('tokens')
@ApiBearerAuth()
@RequireScope('admin')
@Controller('tokens')
export class TokensController {
  constructor(private readonly tokens: TokensService) {}

  @Get()
  @ApiOperation({ summary: "List the organization's tokens (never their secrets)" })
  @ApiOkResponse({ schema: openApiSchema(z.array(tokenViewSchema)) })
  async list(@CurrentPrincipal() principal: Principal): Promise<TokenView[]> {
    return (await this.tokens.list(principal.organizationId)).map(tokenView);
  }

  @Post()
  @HttpCode(200)
  @Audited('token.create', { resultField: 'id' })
  @ApiOperation({ summary: 'Create a token; the secret is in the response once and never again' })
  @ApiBody({ schema: openApiSchema(createTokenSchema) })
  @ApiOkResponse({ schema: openApiSchema(tokenViewSchema.extend({ token: z.string() })) })
  async create(
    @CurrentPrincipal() principal: Principal,
    @Body(new ZodPipe(createTokenSchema)) body: z.infer<typeof createTokenSchema>,
  ): Promise<TokenView & { token: string }> {
    const issued = await this.tokens.issue({ organizationId: principal.organizationId, ...body });
    return { ...tokenView(issued.token), token: issued.secret };
  }

  @Delete(':tokenId')
  @Audited('token.revoke', { param: 'tokenId' })
  @ApiOperation({ summary: 'Revoke a token; effective on every replica within one second' })
  @ApiOkResponse({ schema: openApiSchema(tokenViewSchema) })
  async revoke(@CurrentPrincipal() principal: Principal, @Param('tokenId') tokenId: string): Promise<TokenView> {
    return tokenView(await this.tokens.revoke(principal.organizationId, tokenId));
  }
}
