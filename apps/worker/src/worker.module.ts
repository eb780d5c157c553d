import { DynamicModule, Module } from '@nestjs/common';
import { MetricsServer, PlatformModule, QueueMetrics, type Runtime } from '@foresight/platform';
import { ProcessorsModule } from './processors.module';

@Module({})
export class WorkerModule {
  static register(runtime: Runtime): DynamicModule {
    return { module: WorkerModule, imports: [PlatformModule.forRoot(runtime), ProcessorsModule], providers: [MetricsServer, QueueMetrics] };
  }
}
