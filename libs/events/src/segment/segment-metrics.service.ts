import { Injectable } from '@nestjs/common';
import { Counter, Registry } from 'prom-client';

/**
 * `context.library.name` of the Segment and RudderStack SDKs we know; any other name is "other", so a
 * client cannot grow the label set (the name is whatever the sender writes).
 */
const KNOWN_LIBRARIES: ReadonlySet<string> = new Set([
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

export interface SegmentOutcome {
  accepted: number;
  duplicates: number;
  rejected: number;
}

/** Messages received on the Segment-compatible routes, by route, sending library and outcome. */
@Injectable()
export class SegmentMetricsService {
  private readonly messages: Counter<'route' | 'library' | 'outcome'>;

  constructor(registry: Registry) {
    this.messages = new Counter({
      name: 'foresight_segment_messages_total',
      help: 'Messages on the Segment-compatible routes: accepted, duplicate (messageId already stored) or rejected (invalid, skipped)',
      labelNames: ['route', 'library', 'outcome'] as const,
      registers: [registry],
    });
  }

  /** `route` is one of our fixed route names, never the request's path. */
  received(route: string, library: string | undefined, outcome: SegmentOutcome): void {
    const labels = { route, library: library !== undefined && KNOWN_LIBRARIES.has(library) ? library : 'other' };
    if (outcome.accepted > 0) this.messages.inc({ ...labels, outcome: 'accepted' }, outcome.accepted);
    if (outcome.duplicates > 0) this.messages.inc({ ...labels, outcome: 'duplicate' }, outcome.duplicates);
    if (outcome.rejected > 0) this.messages.inc({ ...labels, outcome: 'rejected' }, outcome.rejected);
  }
}
