import { BullModule } from '@nestjs/bullmq';
import { Module } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { AuthModule } from '@foresight/auth';
import { EventsModule } from '@foresight/events';
import { QUEUES, UserActivityModule } from '@foresight/platform';
import { ErasureRecords } from './erasure/erasure-records';
import { PrivacyService } from './privacy.service';
import { PersonalDataStores } from './stores/personal-data-stores';
import { QueuedJobsPersonalData } from './stores/queued-jobs-personal-data';

/**
 * Export and erasure over every personal-data store the process composes (discovered, not imported),
 * and the erasure log. The API, the CLI and the worker's privacy processors use it.
 */
@Module({
  imports: [DiscoveryModule, AuthModule, EventsModule, UserActivityModule, BullModule.registerQueue({ name: QUEUES.privacy }, { name: QUEUES.domainEvents }, { name: QUEUES.userActivity })],
  providers: [PersonalDataStores, PrivacyService, ErasureRecords, QueuedJobsPersonalData],
  exports: [PrivacyService, ErasureRecords, PersonalDataStores],
})
export class PrivacyModule {}
