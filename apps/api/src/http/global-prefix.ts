import type { INestApplication } from '@nestjs/common';

/** Every route is under /v1 but the probes, the SDK's static files, RudderStack's settings route and the dashboard's sign-in (/auth). */
export function useVersionPrefix(app: INestApplication): void {
  app.setGlobalPrefix('v1', { exclude: ['livez', 'readyz', 'sdk/*path', 'sourceConfig', 'auth/*path'] });
}
