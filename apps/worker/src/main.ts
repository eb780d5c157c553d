import './tracing';
import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { closeOnSignals, PinoNestLogger, startRuntime } from '@foresight/platform';
import { WorkerModule } from './worker.module';

async function bootstrap(): Promise<void> {
  const runtime = await startRuntime('worker');
  const app = await NestFactory.createApplicationContext(WorkerModule.register(runtime), {
    logger: new PinoNestLogger(runtime.logger),
  });
  await app.init();
  runtime.logger.info('Foresight worker running');
  // Closing the context lets BullMQ workers finish their in-flight jobs before connections close.
  closeOnSignals(app, runtime);
}

bootstrap().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
