import { randomUUID } from 'node:crypto';
import { gzipSync } from 'node:zlib';

/**
 * The upload and settings requests of the eight mobile SDKs, rebuilt byte for byte from their
 * sources (path, headers, encoding, chunking, body layout, field formats). Each cites the code it
 * reproduces, at the commit the citation was read from. Sent raw (node:http) so nothing is normalized.
 */
export interface SdkRequest {
  method: 'GET' | 'POST';
  path: string;
  headers: Record<string, string>;
  /** Body chunks; `chunked` sends them with Transfer-Encoding: chunked, else with Content-Length. */
  chunks: Buffer[];
  chunked: boolean;
}

export interface SdkFixture {
  sdk: string;
  /** The library name the SDK writes in context.library.name. */
  library: string;
  settings: SdkRequest;
  /** What the SDK's settings parser needs from our answer, checked against the body. */
  acceptsSettings: (body: Record<string, unknown>, writeKey: string) => void;
  upload: SdkRequest;
  userId: string;
  /** The stored event names the upload must produce. */
  events: string[];
}

const basic = (writeKey: string) => `Basic ${Buffer.from(`${writeKey}:`).toString('base64')}`;
/** ISO 8601 with milliseconds and Z, as Java's "yyyy-MM-dd'T'HH:mm:ss.SSS'Z'", Swift's ISO8601DateFormatter(.withFractionalSeconds) and JS write it. */
const iso = (msAgo = 0) => new Date(Date.now() - msAgo).toISOString();
/** Dart's DateTime.now().toUtc().toIso8601String(): microseconds. */
const dartIso = (msAgo = 0) => iso(msAgo).replace('Z', '456Z');

function expectObject(value: unknown, what: string): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new Error(`${what} is not an object: ${JSON.stringify(value)}`);
  return value as Record<string, unknown>;
}

function expectString(value: unknown, what: string): asserts value is string {
  if (typeof value !== 'string') throw new Error(`${what} is not a string: ${JSON.stringify(value)}`);
}

/**
 * Segment: the mobile SDKs post to `https://<apiHost>/b` where apiHost is the settings'
 * integrations["Segment.io"].apiHost, a host and path without scheme.
 */
function acceptsSegmentSettings(body: Record<string, unknown>, writeKey: string): void {
  const segment = expectObject(expectObject(body.integrations, 'integrations')['Segment.io'], 'integrations["Segment.io"]');
  if (segment.apiKey !== writeKey) throw new Error('integrations["Segment.io"].apiKey is not the write key');
  expectString(segment.apiHost, 'apiHost');
  if (/^https?:\/\//.test(segment.apiHost) || !segment.apiHost.endsWith('/v1')) throw new Error(`apiHost ${segment.apiHost} is not <host>/v1`);
  // analytics-kotlin Settings.kt:19-27: every field a non-null JsonObject (defaults when absent).
  for (const key of ['plan', 'edgeFunction', 'middlewareSettings', 'metrics', 'consentSettings']) {
    if (key in body) expectObject(body[key], key);
  }
}

interface MobileSpec extends Pick<SdkFixture, 'sdk' | 'library' | 'userId' | 'events' | 'acceptsSettings'> {
  settings: { path: string; headers: Record<string, string> };
  upload: { path: string; headers: Record<string, string>; chunks: Buffer[]; chunked?: boolean };
}

/** A settings GET without a body, then the upload POST. */
function mobileFixture(spec: MobileSpec): SdkFixture {
  return {
    sdk: spec.sdk,
    library: spec.library,
    settings: { method: 'GET', path: spec.settings.path, headers: spec.settings.headers, chunks: [], chunked: false },
    acceptsSettings: spec.acceptsSettings,
    upload: { method: 'POST', path: spec.upload.path, headers: spec.upload.headers, chunks: spec.upload.chunks, chunked: spec.upload.chunked ?? false },
    userId: spec.userId,
    events: spec.events,
  };
}

/** Segment's mobile SDKs: settings from `<cdnHost>/projects/<writeKey>/settings`, batches to `<apiHost>/b`. */
function segmentMobile(
  writeKey: string,
  sdk: Pick<SdkFixture, 'sdk' | 'library' | 'userId' | 'events'> & { settingsHeaders: Record<string, string>; uploadHeaders: Record<string, string>; chunks: Buffer[]; chunked?: boolean },
  acceptsSettings: SdkFixture['acceptsSettings'] = acceptsSegmentSettings,
): SdkFixture {
  return mobileFixture({
    ...sdk,
    acceptsSettings,
    settings: { path: `/v1/projects/${writeKey}/settings`, headers: sdk.settingsHeaders },
    upload: { path: '/v1/b', headers: sdk.uploadHeaders, chunks: sdk.chunks, chunked: sdk.chunked },
  });
}

/** RudderStack v1 (RSServerConfigSource.m:27-55, RudderServerConfigSource.java) and v2 (SourceConfig.kt:89-98, SourceConfig.swift:40-101). */
function acceptsRudderStackSourceConfig(body: Record<string, unknown>, writeKey: string): void {
  const source = expectObject(body.source, 'source');
  if (source.enabled !== true) throw new Error('source.enabled is not true');
  for (const key of ['id', 'name', 'workspaceId', 'updatedAt']) expectString(source[key], `source.${key}`);
  if (source.writeKey !== writeKey) throw new Error('source.writeKey is not the write key');
  if (!Array.isArray(source.destinations)) throw new Error('source.destinations is not an array');
  // rudder-sdk-swift SourceConfig.swift:66-101: config.statsCollection.{errors,metrics}.enabled are required.
  const stats = expectObject(expectObject(source.config, 'source.config').statsCollection, 'statsCollection');
  if (typeof expectObject(stats.errors, 'errors').enabled !== 'boolean') throw new Error('errors.enabled');
  if (typeof expectObject(stats.metrics, 'metrics').enabled !== 'boolean') throw new Error('metrics.enabled');
}

export function sdkFixtures(writeKey: string): SdkFixture[] {
  const run = randomUUID().slice(0, 8);
  return [
    analyticsSwift(writeKey, run),
    analyticsKotlin(writeKey, run),
    analyticsFlutter(writeKey, run),
    analyticsReactNative(writeKey, run),
    rudderIosV1(writeKey, run),
    rudderAndroidV1(writeKey, run),
    rudderKotlinV2(writeKey, run),
    rudderSwiftV2(writeKey, run),
  ];
}

/**
 * segmentio/analytics-swift @ c9a0d63
 * - upload: Sources/Segment/Utilities/Networking/HTTPClient.swift:126 (`/b` on apiHost, https), :283-288 (headers:
 *   Content-Type "application/json; charset=utf-8", User-Agent "analytics-ios/<version>", Accept-Encoding gzip; no
 *   Authorization), uploadTask(fromFile:) so a Content-Length body.
 * - body: Sources/Segment/Utilities/Storage/Types/DirectoryStore.swift:159 (`{ "batch": [` line), :78-81 (one event
 *   per line, "," before all but the first), :191-193 (`],"sentAt":"…","writeKey":"…"}`), LineStream.swift:11,107 ("\n" after each line).
 * - dates: Sources/Segment/Utilities/iso8601.swift:13 (fractional seconds). Library: Plugins/Context.swift:60.
 * - settings: HTTPClient.swift:201-202 (`/projects/<writeKey>/settings` on cdnHost, same headers), parsed by Settings.swift:36-45.
 */
function analyticsSwift(writeKey: string, run: string): SdkFixture {
  const userId = `swift-user-${run}`;
  const anonymousId = randomUUID().toUpperCase();
  const context = { library: { name: 'analytics-swift', version: '1.7.3' }, instanceId: randomUUID(), os: { name: 'iOS', version: '18.1' } };
  const events = [
    { type: 'screen', name: 'Home', anonymousId, userId, messageId: randomUUID(), timestamp: iso(3000), context, integrations: {}, properties: {} },
    { type: 'track', event: "Tapped 'Buy'", anonymousId, userId, messageId: randomUUID(), timestamp: iso(2000), context, integrations: {}, properties: { sku: 'A1' } },
  ];
  const lines = ['{ "batch": [', JSON.stringify(events[0]), `,${JSON.stringify(events[1])}`, `],"sentAt":"${iso()}","writeKey":"${writeKey}"}`];
  const headers = { 'Content-Type': 'application/json; charset=utf-8', 'User-Agent': 'analytics-ios/1.7.3', 'Accept-Encoding': 'gzip' };
  return segmentMobile(writeKey, {
    sdk: 'analytics-swift',
    library: 'analytics-swift',
    userId,
    events: ['screen_view', "Tapped 'Buy'"],
    settingsHeaders: headers,
    uploadHeaders: headers,
    chunks: [Buffer.from(lines.map((line) => `${line}\n`).join(''))],
  });
}

/**
 * segmentio/analytics-kotlin @ a14649b
 * - upload: core/src/main/java/com/segment/analytics/kotlin/core/HTTPClient.kt:167-171 (`https://<apiHost>/b`,
 *   Content-Type text/plain, Content-Encoding gzip, setChunkedStreamingMode(0)), :96-99 (GZIPOutputStream),
 *   :192 (User-Agent analytics-kotlin/<version>); platform/EventPipeline.kt:231-241 (the batch file copied to the stream).
 * - body: core/utilities/EventsFileManager.kt:118 (`{"batch":[`), :84-86 ("," between events), :139 (`],"sentAt":"…","writeKey":"…"}`).
 * - library: platform/plugins/ContextPlugin.kt:35.
 * - settings: HTTPClient.kt:156 (`https://<cdnHost>/projects/<writeKey>/settings`, no Authorization), parsed by
 *   Settings.kt:119 (LenientJson) into Settings.kt:19-27 (JsonObject fields).
 */
function analyticsKotlin(writeKey: string, run: string): SdkFixture {
  const userId = `kotlin-user-${run}`;
  const anonymousId = randomUUID();
  const context = { library: { name: 'analytics-kotlin', version: '1.19.1' }, instanceId: randomUUID(), device: { manufacturer: 'Google' } };
  const events = [
    { properties: { plan: 'pro' }, event: 'Signed Up', type: 'track', messageId: randomUUID(), anonymousId, integrations: {}, context, userId, timestamp: iso(2000) },
    { properties: { name: 'Cart' }, name: 'Cart', category: '', type: 'screen', messageId: randomUUID(), anonymousId, integrations: {}, context, userId, timestamp: iso(1000) },
  ];
  const body = gzipSync(`{"batch":[${events.map((e) => JSON.stringify(e)).join(',')}],"sentAt":"${iso()}","writeKey":"${writeKey}"}`);
  // GZIPOutputStream over a chunked stream: the gzip bytes arrive in several chunks.
  const chunks = [body.subarray(0, 10), body.subarray(10, 40), body.subarray(40)];
  return segmentMobile(writeKey, {
    sdk: 'analytics-kotlin',
    library: 'analytics-kotlin',
    userId,
    events: ['Signed Up', 'screen_view'],
    settingsHeaders: { 'User-Agent': 'analytics-kotlin/1.19.1', 'Content-Type': 'application/json; charset=utf-8' },
    uploadHeaders: { 'User-Agent': 'analytics-kotlin/1.19.1', 'Content-Type': 'text/plain', 'Content-Encoding': 'gzip' },
    chunks,
    chunked: true,
  });
}

/**
 * segmentio/analytics_flutter @ 4d685c7
 * - upload: packages/core/lib/utils/http_client.dart:35 (`/b`), :38-43 (jsonEncode of batch, sentAt as
 *   DateTime.now().toUtc().toIso8601String() with microseconds, writeKey), :97-102 (headers; no Authorization).
 * - events: packages/core/lib/event.g.dart:50-61 (nulls kept: properties null, _metadata null), event.dart:147
 *   (type), event.dart:585 (timestamp, Dart microseconds); library: plugins/inject_context.dart:16.
 * - settings: http_client.dart:70-90, parsed by state.g.dart:56-63 (integrations a Map, middlewareSettings optional,
 *   state.g.dart:80-86 routingRules optional).
 */
function analyticsFlutter(writeKey: string, run: string): SdkFixture {
  const userId = `flutter-user-${run}`;
  const anonymousId = randomUUID();
  const context = { library: { name: 'analytics-flutter', version: '1.1.7' }, instanceId: randomUUID() };
  const events = [
    { anonymousId, messageId: randomUUID(), userId, timestamp: dartIso(2000), context, integrations: {}, _metadata: null, event: 'Opened', properties: null, type: 'track' },
    { anonymousId, messageId: randomUUID(), userId, timestamp: dartIso(1000), context, integrations: {}, _metadata: null, name: 'Settings', properties: null, type: 'screen' },
  ];
  const headers = { 'Content-Type': 'application/json; charset=utf-8', 'User-Agent': 'analytics-flutter/1.1.7', 'Accept-Encoding': 'gzip' };
  return segmentMobile(
    writeKey,
    {
      sdk: 'analytics_flutter',
      library: 'analytics-flutter',
      userId,
      events: ['Opened', 'screen_view'],
      settingsHeaders: headers,
      uploadHeaders: headers,
      chunks: [Buffer.from(JSON.stringify({ batch: events, sentAt: dartIso(), writeKey }))],
    },
    (body, key) => {
      acceptsSegmentSettings(body, key);
      if (body.middlewareSettings !== undefined && body.middlewareSettings !== null) {
        const rules = expectObject(body.middlewareSettings, 'middlewareSettings').routingRules;
        if (rules !== undefined && !Array.isArray(rules)) throw new Error('routingRules');
      }
    },
  );
}

/**
 * segmentio/analytics-react-native @ 74884be7
 * - upload: packages/core/src/api.ts:14-31 (fetch POST, Content-Type "application/json; charset=utf-8" — text/plain
 *   before v2.20 —, body {batch, sentAt, writeKey}, no Authorization); plugins/SegmentDestination.ts:441-487
 *   (nothing is sent before update() sees integrations["Segment.io"]; apiHost → `https://<apiHost>/b`).
 * - library: context.ts:85-87.
 * - settings: analytics.ts:393-400 (fetch with Cache-Control: no-cache), config-validation.ts:149-170 (integrations an object).
 */
function analyticsReactNative(writeKey: string, run: string): SdkFixture {
  const userId = `rn-user-${run}`;
  const anonymousId = randomUUID();
  const context = { library: { name: 'analytics-react-native', version: '2.21.0' }, instanceId: randomUUID(), app: { build: '1' } };
  const events = [
    { anonymousId, userId, messageId: randomUUID(), timestamp: iso(2000), type: 'track', event: 'Added To Cart', properties: { price: 9.5 }, context, integrations: {} },
    { anonymousId, userId, messageId: randomUUID(), timestamp: iso(1000), type: 'group', groupId: 'acme', traits: { name: 'Acme' }, context, integrations: {} },
  ];
  return segmentMobile(writeKey, {
    sdk: 'analytics-react-native',
    library: 'analytics-react-native',
    userId,
    events: ['Added To Cart', 'group'],
    settingsHeaders: { 'Cache-Control': 'no-cache' },
    uploadHeaders: { 'Content-Type': 'application/json; charset=utf-8' },
    chunks: [Buffer.from(JSON.stringify({ batch: events, sentAt: iso(), writeKey }))],
  });
}

/**
 * RudderStack v1 messages (RudderMessage / RSMessage): originalTimestamp and no timestamp, numeric
 * context.sessionId, a screen as `event` + properties.name without `name`, integrations {All: true}, channel mobile.
 */
function rudderV1Messages(library: string, userId: string, anonymousId: string, sentAt: string): string[] {
  const context = { library: { name: library, version: '1.29.0' }, sessionId: Date.now() - 60_000, traits: { anonymousId }, locale: 'en-US' };
  const base = { anonymousId, userId, channel: 'mobile', context, integrations: { All: true } };
  return [
    { ...base, messageId: `${Date.now()}-${randomUUID()}`, originalTimestamp: iso(3000), type: 'screen', event: 'Catalog', properties: { name: 'Catalog', automatic: false } },
    { ...base, messageId: `${Date.now()}-${randomUUID()}`, originalTimestamp: iso(2000), type: 'track', event: 'Product Viewed', properties: { sku: 'B2' } },
    { ...base, messageId: `${Date.now()}-${randomUUID()}`, originalTimestamp: iso(1000), type: 'alias', previousId: anonymousId },
    // Each stored message gets `,"sentAt":"…"}` appended in place of its closing brace.
  ].map((message) => `${JSON.stringify(message).slice(0, -1)},"sentAt":"${sentAt}"}`);
}

/**
 * rudderlabs/rudder-sdk-ios (v1) @ dcf152d
 * - upload: Sources/Classes/RSNetworkManager.m:52-66 (Authorization Basic base64(writeKey:), Content-Type
 *   application/json, AnonymousId header (base64), gzip by default with Content-Encoding, setHTTPBody so Content-Length),
 *   :135 (`v1/batch` on the data plane URL).
 * - body: Sources/Classes/RSCloudModeManager.m:98-115 (`{"sentAt":"…","batch":[` then each message with sentAt added).
 * - library: Sources/Classes/RSLibraryInfo.m:17.
 * - settings: RSNetworkManager.m:139 (`sourceConfig?p=ios&v=<version>`, Basic), parsed by RSServerConfigSource.m:27-60
 *   (source.enabled must be true for uploads).
 */
function rudderIosV1(writeKey: string, run: string): SdkFixture {
  return rudderV1Fixture(writeKey, {
    sdk: 'rudder-sdk-ios v1',
    library: 'rudder-ios-library',
    userId: `rudder-ios-user-${run}`,
    anonymousId: randomUUID().toUpperCase(),
    sourceConfigPath: '/sourceConfig?p=ios&v=1.29.0',
    batchOpening: '"batch":[',
  });
}

/**
 * rudderlabs/rudder-sdk-android (v1) @ 7fa2a1b9
 * - upload: core/src/main/java/com/rudderstack/android/sdk/core/RudderNetworkManager.java:170-182 (gzip when configured,
 *   the default, Content-Encoding gzip), :197 (Authorization Basic), :218-235 (Content-Type application/json,
 *   AnonymousId header, no streaming mode set: HttpURLConnection buffers and sends Content-Length);
 *   FlushUtils.java:70 + RudderCloudModeManager.java:26 (`v1/batch`).
 * - body: FlushUtils.java:117-160 (`{"sentAt":"…","batch": [` — with a space — each message with `,"sentAt":"…"}`).
 * - settings: RudderServerConfigManager.java:72 (`sourceConfig?p=android&v=<version>&bv=<sdk int>`, Basic), parsed with
 *   Gson into RudderServerConfigSource.java:10-22; EventRepository.java:244 (uploads only when source.enabled).
 */
function rudderAndroidV1(writeKey: string, run: string): SdkFixture {
  return rudderV1Fixture(writeKey, {
    sdk: 'rudder-sdk-android v1',
    library: 'com.rudderstack.android.sdk.core',
    userId: `rudder-android-user-${run}`,
    anonymousId: randomUUID(),
    sourceConfigPath: '/sourceConfig?p=android&v=1.29.0&bv=34',
    batchOpening: '"batch": [',
  });
}

/**
 * The v1 SDKs' shared request shape: Basic auth, a base64 AnonymousId header, gzip (the default) with
 * Content-Length, `{"sentAt":"…",<batchOpening>…]}`, and the sourceConfig fetch first.
 */
function rudderV1Fixture(
  writeKey: string,
  sdk: { sdk: string; library: string; userId: string; anonymousId: string; sourceConfigPath: string; batchOpening: string },
): SdkFixture {
  const sentAt = iso();
  const messages = rudderV1Messages(sdk.library, sdk.userId, sdk.anonymousId, sentAt);
  return mobileFixture({
    ...sdk,
    acceptsSettings: acceptsRudderStackSourceConfig,
    settings: { path: sdk.sourceConfigPath, headers: { Authorization: basic(writeKey) } },
    upload: {
      path: '/v1/batch',
      headers: {
        Authorization: basic(writeKey),
        'Content-Type': 'application/json',
        AnonymousId: Buffer.from(sdk.anonymousId).toString('base64'),
        'Content-Encoding': 'gzip',
      },
      chunks: [gzipSync(`{"sentAt":"${sentAt}",${sdk.batchOpening}${messages.join(',')}]}`)],
    },
    events: ['screen_view', 'Product Viewed', 'alias'],
  });
}

/**
 * rudderlabs/rudder-sdk-kotlin (v2) @ f3b9e6ee
 * - upload: core/src/main/kotlin/com/rudderstack/sdk/kotlin/core/internals/network/HttpClientImpl.kt:127-131 (Authorization
 *   Basic), :228-239 (setChunkedStreamingMode(0), Content-Type application/json, AnonymousId, Content-Encoding gzip with
 *   GZIPOutputStream); internals/queue/EventUpload.kt:37 (`/v1/batch`).
 * - body: internals/storage/EventBatchFileManager.kt:14-15,166,176 (`{"batch":[` … `],"sentAt":"…"}`); events carry
 *   originalTimestamp, sentAt and a numeric context.sessionId (models/Event.kt:87-105).
 * - settings: SourceConfigManager.kt:27-33,186 (`/sourceConfig?p=android&v=…&bv=…&writeKey=…`, LenientJson), parsed into
 *   internals/models/SourceConfig.kt:89-98 (id, name, writeKey, enabled, workspaceId, updatedAt required).
 */
function rudderKotlinV2(writeKey: string, run: string): SdkFixture {
  const userId = `rudder-kotlin-user-${run}`;
  const anonymousId = randomUUID();
  const sentAt = iso();
  const context = { library: { name: 'com.rudderstack.sdk.kotlin.android', version: '1.1.0' }, sessionId: Date.now() - 60_000, sessionStart: true };
  const base = { anonymousId, userId, channel: 'mobile', context, integrations: { All: true }, sentAt };
  const events = [
    { ...base, type: 'track', messageId: randomUUID(), originalTimestamp: iso(2000), event: 'Order Completed', properties: { total: 20 } },
    { ...base, type: 'screen', messageId: randomUUID(), originalTimestamp: iso(1000), event: 'Checkout', properties: { name: 'Checkout' } },
  ];
  const body = gzipSync(`{"batch":[${events.map((e) => JSON.stringify(e)).join(',')}],"sentAt":"${sentAt}"}`);
  return mobileFixture({
    sdk: 'rudder-sdk-kotlin v2',
    library: 'com.rudderstack.sdk.kotlin.android',
    acceptsSettings: acceptsRudderStackSourceConfig,
    settings: { path: `/sourceConfig?p=android&v=1.1.0&bv=34&writeKey=${writeKey}`, headers: { Authorization: basic(writeKey) } },
    upload: {
      path: '/v1/batch',
      headers: { Authorization: basic(writeKey), 'Content-Type': 'application/json', AnonymousId: anonymousId, 'Content-Encoding': 'gzip' },
      chunks: [body.subarray(0, 20), body.subarray(20)],
      chunked: true,
    },
    userId,
    events: ['Order Completed', 'screen_view'],
  });
}

/**
 * rudderlabs/rudder-sdk-swift (v2) @ bd6c4c63
 * - upload: Sources/RudderStackAnalytics/Network/HttpClient.swift:62-73 (httpBody = batch, gzipped when enabled, the
 *   default), :97 (`v1/batch`), :108-118 (Content-Type application/json, Authorization Basic, AnonymousId, Content-Encoding gzip).
 * - body: Storage/Store/DataStore.swift:51-52 (`{"batch":[` … `],"sentAt":"…"}`); library: Helpers/Utils/Constants.swift:225.
 * - settings: HttpClient.swift:40-47 (`sourceConfig` + query + writeKey, Basic), parsed by SourceConfig/SourceConfig.swift:14-101
 *   (Codable: id, name, writeKey, enabled, workspaceId, updatedAt, config.statsCollection, destinations required).
 */
function rudderSwiftV2(writeKey: string, run: string): SdkFixture {
  const userId = `rudder-swift-user-${run}`;
  const anonymousId = randomUUID();
  const sentAt = iso();
  const context = { library: { name: 'rudder-sdk-swift', version: '1.0.0' }, sessionId: Math.floor(Date.now() / 1000) - 60 };
  const base = { anonymousId, userId, channel: 'mobile', context, integrations: { All: true }, sentAt };
  const events = [
    { ...base, type: 'identify', messageId: randomUUID(), originalTimestamp: iso(2000), traits: { plan: 'gold' } },
    { ...base, type: 'track', messageId: randomUUID(), originalTimestamp: iso(1000), event: 'Subscribed', properties: null },
  ];
  return mobileFixture({
    sdk: 'rudder-sdk-swift v2',
    library: 'rudder-sdk-swift',
    acceptsSettings: acceptsRudderStackSourceConfig,
    settings: { path: `/sourceConfig?p=ios&v=1.0.0&writeKey=${writeKey}`, headers: { 'Content-Type': 'application/json', Authorization: basic(writeKey) } },
    upload: {
      path: '/v1/batch',
      headers: { 'Content-Type': 'application/json', Authorization: basic(writeKey), AnonymousId: anonymousId, 'Content-Encoding': 'gzip' },
      chunks: [gzipSync(`{"batch":[${events.map((e) => JSON.stringify(e)).join(',')}],"sentAt":"${sentAt}"}`)],
    },
    userId,
    events: ['identify', 'Subscribed'],
  });
}
