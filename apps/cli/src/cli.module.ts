import { DynamicModule, Module } from '@nestjs/common';
import { AuthModule } from '@foresight/auth';
import { EventsModule } from '@foresight/events';
import { ModelsModule } from '@foresight/models';
import { PlatformModule, QueueModule, type Runtime } from '@foresight/platform';
import { MonitoringRunModule, PredictionsModule } from '@foresight/predictions';
import { PrivacyModule } from '@foresight/privacy';

@Module({})
export class CliModule {
  static register(runtime: Runtime): DynamicModule {
    return { module: CliModule, imports: [PlatformModule.forRoot(runtime), QueueModule, AuthModule, EventsModule, ModelsModule, MonitoringRunModule, PredictionsModule, PrivacyModule] };
  }
}
