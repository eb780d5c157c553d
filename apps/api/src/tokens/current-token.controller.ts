import { Controller, Get } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { z } from 'zod';
import type { TokenPrincipal } from '@foresight/auth';
import { CurrentToken } from '../http/access.decorators';
import { openApiSchema } from '../http/zod';

const currentTokenSchema = z.object({
  tokenId: z.string(),
  organizationId: z.string(),
  environment: z.enum(['dev', 'staging', 'prod']),
  scopes: z.array(z.enum(['ingest', 'read', 'admin'])),
  expiresAt: z.string().nullable(),
});

/** What the caller's own token may do: the dashboard shows or hides actions by these scopes (any valid token). */
@ApiTags('tokens')
@ApiBearerAuth()
@Controller('tokens')
export class CurrentTokenController {
  @Get('current')
  @ApiOperation({ summary: 'The token making the request: its organization, environment, scopes and expiry (any valid token)' })
  @ApiOkResponse({ schema: openApiSchema(currentTokenSchema) })
  current(@CurrentToken() principal: TokenPrincipal): z.infer<typeof currentTokenSchema> {
    return {
      tokenId: principal.tokenId,
      organizationId: principal.organizationId,
      environment: principal.environment,
      scopes: [...principal.tokenScopes],
      expiresAt: principal.expiresAt?.toISOString() ?? null,
    };
  }
}
