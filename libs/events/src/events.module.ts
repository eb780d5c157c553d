import { BullModule } from '@nestjs/bullmq';
import { Module } from '@nestjs/common';
import { AuthModule } from '@foresight/auth';
import { QUEUES, UserActivityModule } from '@foresight/platform';
import { EventPayloadCipher } from './encryption/event-payload-cipher';
import { KeyRotation } from './encryption/key-rotation';
import { EventWriter } from './ingest/event-writer';
import { IngestService } from './ingest/ingest.service';
import { IdentitiesPersonalData, SessionsPersonalData } from './privacy/derived-personal-data';
import { EventsPersonalData } from './privacy/events-personal-data';
import { SegmentMetrics } from './segment/segment-metrics';
import { SessionsService } from './sessions/sessions.service';
import { SuppressionList } from './suppression/suppression-list';
import { UserEventsService } from './users/user-events.service';
import { UserIdsService } from './users/user-ids.service';

@Module({
  imports: [AuthModule, BullModule.registerQueue({ name: QUEUES.events }), UserActivityModule],
  providers: [
    EventWriter,
    IngestService,
    SessionsService,
    EventPayloadCipher,
    KeyRotation,
    SuppressionList,
    SegmentMetrics,
    EventsPersonalData,
    SessionsPersonalData,
    IdentitiesPersonalData,
    UserIdsService,
    UserEventsService,
  ],
  exports: [IngestService, SegmentMetrics, SessionsService, KeyRotation, SuppressionList, UserIdsService, UserEventsService, EventPayloadCipher],
})
export class EventsModule {}
