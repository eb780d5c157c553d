import type { INestApplication } from '@nestjs/common';
import { DocumentBuilder, SwaggerModule } from '@nestjs/swagger';
import { SERVICE_VERSION } from '@foresight/platform';

/**
 * The OpenAPI document is generated from the controllers and their zod schemas at start-up.
 * It describes the API, holds no organization data, and so is served without a token.
 */
export function serveOpenApi(app: INestApplication): void {
  const document = SwaggerModule.createDocument(
    app,
    new DocumentBuilder()
      .setTitle('Foresight API')
      .setDescription('Behavioral analytics and predictions. Every /v1 route needs `Authorization: Bearer <token>`.')
      .setVersion(SERVICE_VERSION)
      .addBearerAuth({ type: 'http', scheme: 'bearer', description: 'pat_<env>_<secret>' })
      .build(),
  );
  SwaggerModule.setup('v1/docs', app, document, { jsonDocumentUrl: 'v1/openapi.json', yamlDocumentUrl: 'v1/openapi.yaml' });
}
