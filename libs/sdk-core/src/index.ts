export { type Clock, systemClock } from './clock';
export { Dispatcher } from './dispatcher';
export { type EventQueue, MAX_BATCH_EVENTS, MAX_QUEUED_EVENTS, MemoryEventQueue, type QueueLimits, retryDelayMs, StoredEventQueue } from './event-queue';
export { randomId, toHex } from './ids';
export { buildEvent, eventBytes, isPlainObject, isValidEventName, MAX_EVENT_BYTES, MAX_REQUEST_BYTES, MAX_REQUEST_EVENTS, rejectedIndexes, type SdkEvent, trackProblem } from './payload';
export { type KeyValueStore, memoryStore, parseJson } from './storage';
export { type Library, Tracker, type TrackerOptions } from './tracker';
export { type HttpPost, type HttpReply, retryAfterSeconds, type SendOutcome, Transport } from './transport';
