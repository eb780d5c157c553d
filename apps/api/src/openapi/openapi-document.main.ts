import 'reflect-metadata';
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import pino from 'pino';
import { loadConfig, type Runtime } from '@foresight/platform';
import { ApiModule } from '../api.module';
import { useVersionPrefix } from '../http/global-prefix';
import { buildOpenApiDocument } from './openapi';

async function main(): Promise<void> {
  const config = loadConfig({ DATABASE_URL: 'postgres://127.0.0.1/unused', TOKEN_PEPPER: randomBytes(32).toString('hex'), ENCRYPTION_KEY: randomBytes(32).toString('hex'), WORKER_MODE: 'off' });
  // Preview mode instantiates no provider: nothing connects to the database or Redis, nothing logs.
  const logger = pino({ level: 'silent' });
  const runtime: Runtime = { config, logger, database: { type: 'postgres' }, stop: async () => undefined };
  const app = await NestFactory.create(ApiModule.register(runtime), new FastifyAdapter(), { preview: true, logger: false });
  useVersionPrefix(app);
  writeFileSync(process.argv[2], JSON.stringify(buildOpenApiDocument(app), null, 2));
  await app.close();
}
void main();
