import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Logger } from '@foresight/platform';
import { toErrorResponse } from './error-response';

/** Sends any error as the CONTRACT.md body. Used by the Nest filter and by Fastify's error handler alike. */
export function sendError(error: unknown, request: FastifyRequest, reply: FastifyReply, logger: Logger): void {
  const response = toErrorResponse(error);
  if (response.unexpected) {
    reply.header('x-correlation-id', request.id);
    logger.error({ err: error, reqId: request.id, route: request.routeOptions?.url }, 'unexpected error');
  } else if (response.status === 503) {
    logger.warn({ err: error, reqId: request.id }, 'backing service unavailable');
  }
  void reply.status(response.status).headers(response.headers).send(response.body);
}
