import { type EventInput, MAX_EVENTS_PER_BATCH } from '@foresight/events';
import { type DemoOptions, generateDemoUsers } from './demo-generator';
import type { DemoTruth } from './demo-oracle';
import type { DemoIntentSignal } from './demo-population';
import { generateSaasUsers } from './demo-saas';

/** What `demo seed` generates: any mode, `saas` included. */
export type DemoSeedOptions = Omit<DemoOptions, 'intentSignal'> & { intentSignal?: DemoIntentSignal };

/** Sends one batch (at most MAX_EVENTS_PER_BATCH events) through the ingestion path. */
export type IngestBatch = (events: EventInput[]) => Promise<{ accepted: number; duplicates: number }>;

export interface SeedResult {
  users: number;
  events: number;
  accepted: number;
  duplicates: number;
  seconds: number;
  eventsPerSecond: number;
}

/** Batches in flight at once: enough for the writer to coalesce them into group commits. */
export const SEED_CONCURRENCY = 4;

/**
 * Streams the demo population into `ingest` in full batches, a few at a time, holding at most
 * SEED_CONCURRENCY + 1 batches. `onUser` sees each user's truth as it is generated (truth files).
 */
export async function seedDemo(options: DemoSeedOptions, ingest: IngestBatch, onUser?: (truth: DemoTruth) => Promise<void>): Promise<SeedResult> {
  const started = performance.now();
  const totals = { users: 0, events: 0, accepted: 0, duplicates: 0 };
  const inFlight = new Set<Promise<void>>();
  let failure: { error: unknown } | undefined;

  const send = async (batch: EventInput[]): Promise<void> => {
    while (inFlight.size >= SEED_CONCURRENCY) await Promise.race(inFlight);
    if (failure) throw failure.error;
    const sending: Promise<void> = ingest(batch).then(
      (result) => {
        totals.accepted += result.accepted;
        totals.duplicates += result.duplicates;
      },
      // Kept and rethrown by the caller's next step, so no rejection goes unhandled.
      (error: unknown) => {
        failure ??= { error };
      },
    );
    inFlight.add(sending);
    void sending.finally(() => inFlight.delete(sending));
  };

  let batch: EventInput[] = [];
  const { intentSignal, ...population } = options;
  for (const user of intentSignal === 'saas' ? generateSaasUsers(population) : generateDemoUsers({ ...population, intentSignal })) {
    totals.users++;
    totals.events += user.events.length;
    if (onUser) await onUser(user.truth);
    for (const event of user.events) {
      batch.push(event);
      if (batch.length === MAX_EVENTS_PER_BATCH) {
        await send(batch);
        batch = [];
      }
    }
  }
  if (batch.length > 0) await send(batch);
  await Promise.all(inFlight);
  if (failure) throw failure.error;

  const seconds = (performance.now() - started) / 1000;
  return { ...totals, seconds, eventsPerSecond: seconds > 0 ? totals.events / seconds : 0 };
}
