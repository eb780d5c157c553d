import { Module } from '@nestjs/common';
import { ModelsModule } from '@foresight/models';
import { DomainEventsModule } from '@foresight/platform';
import { PredictionsModule } from '../predictions.module';
import { MonitoringRunService } from './monitoring-run.service';

/** The monitoring run without its schedule: the worker's processor runs it on schedule, the operator CLI on demand (`monitor run`). */
@Module({
  imports: [ModelsModule, DomainEventsModule, PredictionsModule],
  providers: [MonitoringRunService],
  exports: [MonitoringRunService],
})
export class MonitoringRunModule {}
