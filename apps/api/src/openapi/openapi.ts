import type { INestApplication } from '@nestjs/common';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { DocumentBuilder, type OpenAPIObject, SwaggerModule } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import { SERVICE_VERSION } from '@foresight/platform';
import { pageHeaders } from '../http/page-headers';

const DOCS_PATH = '/v1/docs';

/**
 * Swagger UI loads its scripts, stylesheet and icons from this origin (the document is in its init
 * script) and sends "Try it out" requests here. Its page carries inline `<style>` blocks and a style
 * attribute (@nestjs/swagger's template), hence inline styles; never inline script.
 */
const DOCS_HEADERS = pageHeaders(
  [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data:",
    "connect-src 'self'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; '),
);

/**
 * The OpenAPI document is generated from the controllers and their zod schemas at start-up.
 * It describes the API, holds no organization data, and so is served without a token.
 */
export function serveOpenApi(app: NestFastifyApplication): void {
  // The docs page and every file it loads, Swagger UI's static files included (registered in a plugin of their own).
  app.getHttpAdapter().getInstance().addHook('onRoute', (route) => {
    if (route.url === DOCS_PATH || route.url.startsWith(`${DOCS_PATH}/`)) route.onRequest = [...[route.onRequest ?? []].flat(), sendDocsHeaders];
  });
  SwaggerModule.setup(DOCS_PATH.slice(1), app, buildOpenApiDocument(app), {
    jsonDocumentUrl: 'v1/openapi.json',
    yamlDocumentUrl: 'v1/openapi.yaml',
    // Swagger UI would fetch a validity badge from validator.swagger.io, a third-party origin.
    swaggerOptions: { validatorUrl: null },
  });
}

function sendDocsHeaders(_request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction): void {
  void reply.headers(DOCS_HEADERS);
  done();
}

/** Also written at build time (openapi-document.main.ts), for the Node SDK's generated types. */
export function buildOpenApiDocument(app: INestApplication): OpenAPIObject {
  const document = SwaggerModule.createDocument(
    app,
    new DocumentBuilder()
      .setTitle('Foresight API')
      .setDescription('Behavioral analytics and predictions. Every /v1 route needs `Authorization: Bearer <token>`.')
      .setVersion(SERVICE_VERSION)
      .addBearerAuth({ type: 'http', scheme: 'bearer', description: 'pat_<env>_<secret>' })
      .build(),
  );
  keepOperationIds(document);
  return document;
}

/**
 * A handler declared at several paths (a Segment call and its initial, `/v1/track` and `/v1/t`) gets
 * `<id>[0]`, `<id>[1]` from @nestjs/swagger: the first path keeps its plain id, so clients generated
 * before the alias existed keep their operation names, and each alias is `<id>_<its last segment>`
 * (`SdkController_example_view` for `/sdk/example/{view}`; this also renames `SdkController_example[0]`).
 */
function keepOperationIds(document: OpenAPIObject): void {
  for (const [path, item] of Object.entries(document.paths)) {
    for (const operation of Object.values(item as Record<string, { operationId?: string }>)) {
      const indexed = /^(.*)\[(\d+)\]$/.exec(operation?.operationId ?? '');
      if (indexed) operation.operationId = indexed[2] === '0' ? indexed[1] : `${indexed[1]}_${(path.split('/').pop() ?? '').replace(/\W/g, '')}`;
    }
  }
}
