export { systemClock, type Clock } from './clock';
export { Dispatcher } from './dispatcher';
export { MAX_BATCH_EVENTS, MAX_QUEUED_EVENTS, MemoryEventQueue, retryDelayMs, StoredEventQueue, type EventQueue, type QueueLimits } from './event-queue';
export { randomId, toHex } from './ids';
export { buildEvent, eventBytes, isPlainObject, isValidEventName, MAX_EVENT_BYTES, MAX_REQUEST_BYTES, MAX_REQUEST_EVENTS, rejectedIndexes, trackProblem, type SdkEvent } from './payload';
export { memoryStore, parseJson, type KeyValueStore } from './storage';
export { Tracker, type Library, type TrackerOptions } from './tracker';
export { retryAfterSeconds, Transport, type HttpPost, type HttpReply, type SendOutcome } from './transport';
