import type { INestApplication } from '@nestjs/common';

/** Every route is under /v1 but the probes, the SDK's static files and RudderStack's settings route. */
export function useVersionPrefix(app: INestApplication): void {
  app.setGlobalPrefix('v1', { exclude: ['livez', 'readyz', 'sdk/*path', 'sourceConfig'] });
}
