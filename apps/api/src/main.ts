import './tracing';
import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Registry } from 'prom-client';
import { closeOnSignals, PinoNestLogger, SERVICE_VERSION, startRuntime, startupLine, startupSummary } from '@foresight/platform';
import { ApiModule } from './api.module';
import { serveDashboard } from './dashboard/serve-dashboard';
import { acceptBrowserIngestion, BODY_LIMIT_BYTES, withoutSourceConfigSlash } from './http/browser-ingestion';
import { answerClientError, sendError } from './http/error-reply';
import { useVersionPrefix } from './http/global-prefix';
import { observeRequests, requestIdOf, traceRoutes } from './http/observability';
import { readUnreadBodies, unreadBodyRead } from './http/unread-body';
import { serveOpenApi } from './openapi/openapi';

/** How often Node looks for connections past their headers or request timeout. */
const CONNECTIONS_CHECKING_INTERVAL_MS = 1_000;

async function bootstrap(): Promise<void> {
  const runtime = await startRuntime('api');
  const { config, logger } = runtime;
  // Fastify gets no logger: a per-request child logger costs ~7% of throughput, and the access log,
  // error log and request ids are written by observeRequests and sendError with the same pino instance.
  const adapter = new FastifyAdapter({
    logger: false,
    bodyLimit: BODY_LIMIT_BYTES,
    // X-Forwarded-* come from anyone unless the peer is a configured proxy: they decide request.ip
    // (the unauthenticated rate limit's key) and request.host.
    trustProxy: config.http.trustedProxies.length > 0 ? [...config.http.trustedProxies] : false,
    // X-Request-Id is read by requestIdOf, which keeps only a short, plain one: it is logged and echoed.
    requestIdHeader: false,
    genReqId: requestIdOf,
    // Slow and idle clients: Fastify turns Node's request timeout off, and Node would check its
    // timeouts only every 30 s. A client that times out is answered 408 (answerClientError).
    http: { headersTimeout: config.http.headersTimeoutMs, connectionsCheckingInterval: CONNECTIONS_CHECKING_INTERVAL_MS },
    requestTimeout: config.http.requestTimeoutMs,
    keepAliveTimeout: config.http.keepAliveTimeoutMs,
    // Errors Fastify answers itself, before any route (bad URL encoding, an over-long path
    // parameter, unparsable HTTP), get the API's error body like every other error, after the body.
    frameworkErrors: (error: Error, request: FastifyRequest, reply: FastifyReply) => void unreadBodyRead(request).then(() => sendError(error, request, reply, logger)),
    clientErrorHandler: answerClientError,
    rewriteUrl: withoutSourceConfigSlash,
  });
  const app = await NestFactory.create<NestFastifyApplication>(ApiModule.register(runtime), adapter, {
    logger: new PinoNestLogger(logger),
    // Fastify's own JSON parser (prototype-poisoning safe) is the only one; Nest would add urlencoded.
    bodyParser: false,
  });
  const fastify = app.getHttpAdapter().getInstance();
  // Connections past this are closed as they arrive: sockets never take the file descriptors Postgres, Redis and the model files need.
  fastify.server.maxConnections = config.http.maxConnections;
  // Only JSON bodies are parsed (acceptBrowserIngestion reads text/plain and urlencoded ones as JSON on the
  // Segment-compatible routes); every other type is answered 415 (Fastify also parses text/plain by default).
  fastify.removeContentTypeParser('text/plain');
  acceptBrowserIngestion(app);
  observeRequests(fastify, app.get(Registry), logger);
  readUnreadBodies(fastify);
  if (config.tracing) traceRoutes(fastify);
  useVersionPrefix(app);
  serveOpenApi(app);
  if (!serveDashboard(fastify)) logger.warn('The dashboard is not built (dist/dashboard): /dashboard answers 404 until `npm run build` runs.');
  await app.listen(config.port, config.host);
  const startup = startupSummary(config, {
    version: SERVICE_VERSION,
    nodeVersion: process.version,
    dashboardServed: ['/dashboard', '/dashboard/', '/dashboard/*'].some((url) => fastify.hasRoute({ method: 'GET', url })),
  });
  logger.info({ startup }, startupLine(startup));
  closeOnSignals(app, runtime);
}

bootstrap().catch((error: unknown) => {
  // A configuration error lists every bad variable; print it plainly for the operator.
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
