import { DynamicModule, Module } from '@nestjs/common';
import { EventsProcessorsModule } from '@foresight/events';
import { ModelsProcessorsModule } from '@foresight/models';
import { MetricsServerService, PlatformModule, QueueMetricsService, QueueModule, type Runtime } from '@foresight/platform';
import { PredictionsProcessorsModule } from '@foresight/predictions';
import { PrivacyProcessorsModule } from '@foresight/privacy';
import { WebhooksProcessorsModule } from '@foresight/webhooks';

/** Every lib's processors module (each over its lib's own module); the API composes the same ones with WORKER_MODE=inline. */
@Module({})
export class WorkerModule {
  static register(runtime: Runtime): DynamicModule {
    return {
      module: WorkerModule,
      imports: [
        PlatformModule.forRoot(runtime),
        QueueModule,
        EventsProcessorsModule,
        ModelsProcessorsModule,
        PredictionsProcessorsModule,
        PrivacyProcessorsModule,
        WebhooksProcessorsModule,
      ],
      providers: [MetricsServerService, QueueMetricsService],
    };
  }
}
