export { EventsModule } from './events.module';
export { eventSchema, MAX_EVENTS_PER_BATCH, type EventInput } from './event.schema';
export { IngestService, validateEvents, type IngestResult } from './ingest/ingest.service';
export { segmentToEvents, type SegmentCall } from './segment/segment.mapper';
export { EventsProcessorsModule } from './partitions/events-processors.module';
export { SessionsService, SESSION_GAP_MINUTES, type Session } from './sessions/sessions.service';
export { KeyRotation } from './encryption/key-rotation';
export { SuppressionList } from './suppression/suppression-list';
export { EventPayloadCipher, type SealedField } from './encryption/event-payload-cipher';
