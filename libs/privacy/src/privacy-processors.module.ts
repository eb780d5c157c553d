import { BullModule } from '@nestjs/bullmq';
import { Module } from '@nestjs/common';
import { AuthModule } from '@foresight/auth';
import { EventsModule } from '@foresight/events';
import { QUEUES } from '@foresight/platform';
import { PredictionsModule } from '@foresight/predictions';
import { PrivacyModule } from './privacy.module';
import { PrivacyProcessor } from './privacy.processor';
import { RetentionService } from './retention/retention.service';

/**
 * The privacy lib's background work (erasure sweeps, daily retention), composed into the worker.
 * The sweep must see every store the API erased from, so the store-owning modules below privacy are
 * composed here too; stores of libs above privacy (webhooks) come with their own processors module.
 */
@Module({
  imports: [PrivacyModule, AuthModule, EventsModule, PredictionsModule, BullModule.registerQueue({ name: QUEUES.privacy })],
  providers: [PrivacyProcessor, RetentionService],
})
export class PrivacyProcessorsModule {}
