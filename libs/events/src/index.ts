export { EventsModule } from './events.module';
export { eventSchema, MAX_EVENTS_PER_BATCH, MAX_EVENT_BYTES, type EventInput } from './event.schema';
export { IngestService, validateEvents, type IngestResult } from './ingest/ingest.service';
export { looksLikePersonalData } from './pii';
export { segmentToEvents, type SegmentCall } from './segment/segment.mapper';
export { EventsProcessorsModule } from './partitions/events-processors.module';
export { SessionsService, SESSION_GAP_MINUTES, USER_EVENTS_FILTER, type Session } from './sessions/sessions.service';
