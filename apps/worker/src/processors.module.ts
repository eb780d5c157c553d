import { Module } from '@nestjs/common';
import { EventsProcessorsModule } from '@foresight/events';
import { ModelsProcessorsModule } from '@foresight/models';
import { QueueModule } from '@foresight/platform';
import { PredictionsProcessorsModule } from '@foresight/predictions';
import { PrivacyProcessorsModule } from '@foresight/privacy';
import { WebhooksProcessorsModule } from '@foresight/webhooks';

/**
 * Every lib's processor module. The worker process runs them; with WORKER_MODE=inline the
 * API process imports this same module, so both compositions run identical processors.
 */
@Module({
  imports: [QueueModule, EventsProcessorsModule, ModelsProcessorsModule, PredictionsProcessorsModule, PrivacyProcessorsModule, WebhooksProcessorsModule],
})
export class ProcessorsModule {}
