import { Injectable } from '@nestjs/common';
import { Counter, Registry } from 'prom-client';
import { libraryName } from '../ingestion-stats/library-name';


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
    const labels = { route, library: libraryName(library, 'other') };
    if (outcome.accepted > 0) this.messages.inc({ ...labels, outcome: 'accepted' }, outcome.accepted);
    if (outcome.duplicates > 0) this.messages.inc({ ...labels, outcome: 'duplicate' }, outcome.duplicates);
    if (outcome.rejected > 0) this.messages.inc({ ...labels, outcome: 'rejected' }, outcome.rejected);
  }
}
