/**
 * `context.library.name` of the SDKs we know (ours, Segment's and RudderStack's); any other name is
 * "other", so a client cannot grow a label set or a counter hash (the name is whatever the sender writes).
 */
const KNOWN_LIBRARIES: ReadonlySet<string> = new Set([
  // Foresight
  '@foresight/node',
  '@foresight/react-native',
  'foresight-web',
  // Segment
  'analytics-swift',
  'analytics-kotlin',
  'analytics-flutter',
  'analytics-react-native',
  '@segment/analytics-node',
  'analytics.js',
  'analytics-ios',
  'analytics-android',
  // RudderStack
  'rudder-ios-library',
  'com.rudderstack.android.sdk.core',
  'com.rudderstack.sdk.kotlin.android',
  'com.rudderstack.sdk.kotlin.core',
  'rudder-sdk-swift',
  'analytics-node',
  'RudderLabs JavaScript SDK',
]);

/** A request that names no library: a direct API call (curl, a server's own HTTP client). */
export const DIRECT_CALL = 'direct';

/** Events stored by the CLI's `demo seed` (no HTTP request, no library). */
export const DEMO_SEED = 'demo seed';

/** The bounded name a library is counted under: a known name, "other", or `absent` when none was sent. */
export function libraryName(name: string | undefined, absent: string): string {
  if (name === undefined) return absent;
  return KNOWN_LIBRARIES.has(name) ? name : 'other';
}

/**
 * The `context.library.name` of a request's first event (one SDK sends a batch): a body that is one
 * event, an array of events, or a Segment body (one message or `{batch: [...]}`).
 */
export function sendingLibrary(body: unknown): string | undefined {
  const first: unknown = Array.isArray(body) ? body[0] : isObject(body) && Array.isArray(body.batch) ? (body.batch as unknown[])[0] : body;
  const library = isObject(first) && isObject(first.context) ? first.context.library : undefined;
  return isObject(library) && typeof library.name === 'string' ? library.name : undefined;
}

/** How many events a refused body held, as far as it can be told (an unreadable body counts as one). */
export function eventCount(body: unknown): number {
  if (Array.isArray(body)) return Math.max(body.length, 1);
  if (isObject(body) && Array.isArray(body.batch)) return Math.max(body.batch.length, 1);
  return 1;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
