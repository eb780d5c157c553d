import { DynamicModule, Module } from '@nestjs/common';
import { AuthModule } from '@foresight/auth';
import { EventsModule } from '@foresight/events';
import { PlatformModule, type Runtime } from '@foresight/platform';

@Module({})
export class CliModule {
  static register(runtime: Runtime): DynamicModule {
    return { module: CliModule, imports: [PlatformModule.forRoot(runtime), AuthModule, EventsModule] };
  }
}
