import { BullModule } from '@nestjs/bullmq';
import { Module } from '@nestjs/common';
import { AuthModule } from '@foresight/auth';
import { QUEUES, UserActivityModule } from '@foresight/platform';
import { EventActivity } from './activity/event-activity.service';
import { EventPayloadCipher } from './encryption/event-payload-cipher';
import { KeyRotation } from './encryption/key-rotation';
import { EventWriter } from './ingest/event-writer';
import { IngestService } from './ingest/ingest.service';
import { IdentitiesPersonalData, SessionsPersonalData } from './privacy/derived-personal-data';
import { EventsPersonalData } from './privacy/events-personal-data';
import { SegmentMetrics } from './segment/segment-metrics';
import { SessionsService } from './sessions/sessions.service';
import { SuppressionList } from './suppression/suppression-list';

@Module({
  imports: [AuthModule, BullModule.registerQueue({ name: QUEUES.events }), UserActivityModule],
  providers: [
    EventActivity,
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
  ],
  exports: [EventActivity, IngestService, SegmentMetrics, SessionsService, KeyRotation, SuppressionList],
})
export class EventsModule {}
