import { Module } from '@nestjs/common';
import { EventWriter } from './ingest/event-writer';
import { IngestService } from './ingest/ingest.service';

@Module({
  providers: [EventWriter, IngestService],
  exports: [IngestService],
})
export class EventsModule {}
