import type { INestApplication } from '@nestjs/common';
import { DocumentBuilder, type OpenAPIObject, SwaggerModule } from '@nestjs/swagger';
import { SERVICE_VERSION } from '@foresight/platform';

/**
 * The OpenAPI document is generated from the controllers and their zod schemas at start-up.
 * It describes the API, holds no organization data, and so is served without a token.
 */
export function serveOpenApi(app: INestApplication): void {
  SwaggerModule.setup('v1/docs', app, buildOpenApiDocument(app), { jsonDocumentUrl: 'v1/openapi.json', yamlDocumentUrl: 'v1/openapi.yaml' });
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
