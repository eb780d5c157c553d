import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { trace } from '@opentelemetry/api';
import type { FastifyInstance } from 'fastify';
import { Histogram, type Registry } from 'prom-client';
import type { Logger } from '@foresight/platform';

/** A client's X-Request-Id worth keeping: short, and nothing that could forge or break a log line. */
const CLIENT_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * The request's id in the logs (and in X-Correlation-Id on a 500): the client's X-Request-Id when it
 * is one worth keeping, so a caller's trace can be followed here, else a fresh one.
 */
export function requestIdOf(request: IncomingMessage): string {
  const id = request.headers['x-request-id'];
  return typeof id === 'string' && CLIENT_REQUEST_ID.test(id) ? id : randomUUID();
}

/**
 * One access log line and one histogram sample per request, both keyed by the route pattern:
 * raw URLs carry ids and user ids, which belong neither in logs nor in metric labels.
 */
export function observeRequests(fastify: FastifyInstance, registry: Registry, logger: Logger): void {
  const duration = new Histogram({
    name: 'foresight_http_request_duration_seconds',
    help: 'HTTP request duration by method, route and status',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [registry],
  });
  fastify.addHook('onResponse', (request, reply, done) => {
    const route = request.routeOptions.url ?? 'unmatched';
    duration.observe({ method: request.method, route, status: String(reply.statusCode) }, reply.elapsedTime / 1000);
    logger.info(
      { reqId: request.id, method: request.method, route, status: reply.statusCode, ms: Math.round(reply.elapsedTime * 10) / 10 },
      'request',
    );
    done();
  });
}

/**
 * Names each request's server span after its route pattern (`GET /v1/predict`), as the access log
 * does; the exporter drops the raw URL. Registered only when tracing is on.
 */
export function traceRoutes(fastify: FastifyInstance): void {
  fastify.addHook('onRequest', (request, _reply, done) => {
    const route = request.routeOptions.url;
    const span = trace.getActiveSpan();
    if (route !== undefined && span !== undefined) {
      span.setAttribute('http.route', route);
      span.updateName(`${request.method} ${route}`);
    }
    done();
  });
}
