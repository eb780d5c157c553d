import { BullModule } from '@nestjs/bullmq';
import { Module } from '@nestjs/common';
import { AuthModule } from '@foresight/auth';
import { QUEUES, UserActivityModule } from '@foresight/platform';
import { EventActivityService } from './activity/event-activity.service';
import { LiveEventsService } from './activity/live-events.service';
import { EventPayloadCipherService } from './encryption/event-payload-cipher.service';
import { KeyRotationService } from './encryption/key-rotation.service';
import { EventWriterService } from './ingest/event-writer.service';
import { IngestService } from './ingest/ingest.service';
import { MessageKeysService } from './ingest/message-keys.service';
import { IngestionStatsService } from './ingestion-stats/ingestion-stats.service';
import { IdentitiesPersonalDataService, SessionsPersonalDataService } from './privacy/derived-personal-data.service';
import { EventsPersonalDataService } from './privacy/events-personal-data.service';
import { SegmentMetricsService } from './segment/segment-metrics.service';
import { SessionsService } from './sessions/sessions.service';
import { SuppressionListService } from './suppression/suppression-list.service';
import { ActiveUsersService } from './users/active-users.service';
import { UserWindowsService } from './users/kept-windows/user-windows.service';
import { UserEventsService } from './users/user-events.service';
import { UserIdsService } from './users/user-ids.service';

@Module({
  imports: [AuthModule, BullModule.registerQueue({ name: QUEUES.events }), UserActivityModule],
  providers: [
    EventActivityService,
    LiveEventsService,
    EventWriterService,
    IngestService,
    MessageKeysService,
    IngestionStatsService,
    SessionsService,
    EventPayloadCipherService,
    KeyRotationService,
    SuppressionListService,
    SegmentMetricsService,
    EventsPersonalDataService,
    SessionsPersonalDataService,
    IdentitiesPersonalDataService,
    UserIdsService,
    UserEventsService,
    UserWindowsService,
    ActiveUsersService,
  ],
  exports: [
    EventActivityService,
    LiveEventsService,
    IngestService,
    IngestionStatsService,
    SegmentMetricsService,
    SessionsService,
    KeyRotationService,
    SuppressionListService,
    UserIdsService,
    UserEventsService,
    UserWindowsService,
    ActiveUsersService,
    EventPayloadCipherService,
  ],
})
export class EventsModule {}
