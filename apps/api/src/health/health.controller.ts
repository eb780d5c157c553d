import { Controller, Get, Res } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { HealthService, SERVICE_VERSION } from '@foresight/platform';
import { Public } from '../http/access.decorators';
import { UNAVAILABLE_RETRY_AFTER_SECONDS } from '../http/error-response';

@ApiTags('health')
@Controller()
export class HealthController {
  @Get('health')
  @ApiBearerAuth()
  @ApiOperation({ summary: 'Service status and version (any valid token)' })
  @ApiOkResponse({ schema: { type: 'object', properties: { status: { type: 'string' }, version: { type: 'string' } } } })
  status(): { status: string; version: string } {
    return { status: 'ok', version: SERVICE_VERSION };
  }
}

/** Kubernetes probes, outside /v1 and without a token. */
@ApiTags('probes')
@Controller()
@Public()
export class ProbesController {
  constructor(private readonly health: HealthService) {}

  @Get('livez')
  @ApiOperation({ summary: 'Liveness: the process answers' })
  live(): { status: string } {
    return { status: 'ok' };
  }

  @Get('readyz')
  @ApiOperation({ summary: 'Readiness: Postgres and Redis answer' })
  async ready(@Res({ passthrough: true }) reply: FastifyReply): Promise<Record<string, unknown>> {
    const readiness = await this.health.readiness();
    if (readiness.ready) return { status: 'ready', checks: readiness.checks };
    void reply.status(503).header('retry-after', String(UNAVAILABLE_RETRY_AFTER_SECONDS));
    const down = Object.entries(readiness.checks).flatMap(([name, state]) => (state === 'down' ? [name] : []));
    return { error: 'unavailable', message: `Not ready: ${down.join(' and ')} unreachable.`, checks: readiness.checks };
  }
}
