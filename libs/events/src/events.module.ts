import { Module } from '@nestjs/common';
import { EventWriter } from './ingest/event-writer';
import { IngestService } from './ingest/ingest.service';
import { SessionsService } from './sessions/sessions.service';

@Module({
  providers: [EventWriter, IngestService, SessionsService],
  exports: [IngestService, SessionsService],
})
export class EventsModule {}
