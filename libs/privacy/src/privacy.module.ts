import { BullModule } from '@nestjs/bullmq';
import { Module } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { AuthModule } from '@foresight/auth';
import { EventsModule } from '@foresight/events';
import { QUEUES, UserActivityModule } from '@foresight/platform';
import { ErasureRecordsService } from './erasure/erasure-records.service';
import { PrivacyService } from './privacy.service';
import { PersonalDataStoresService } from './stores/personal-data-stores.service';
import { QueuedJobsPersonalDataService } from './stores/queued-jobs-personal-data.service';

/**
 * Export and erasure over every personal-data store the process composes (discovered, not imported),
 * and the erasure log. The API, the CLI and the worker's privacy processors use it.
 */
@Module({
  imports: [DiscoveryModule, AuthModule, EventsModule, UserActivityModule, BullModule.registerQueue({ name: QUEUES.privacy }, { name: QUEUES.domainEvents }, { name: QUEUES.userActivity })],
  providers: [PersonalDataStoresService, PrivacyService, ErasureRecordsService, QueuedJobsPersonalDataService],
  exports: [PrivacyService, ErasureRecordsService, PersonalDataStoresService],
})
export class PrivacyModule {}
