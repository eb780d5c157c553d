import { setImmediate as nextTurn } from 'node:timers/promises';

/**
 * Events a request handles between two turns of the event loop. A 500-event batch is several
 * milliseconds of validation and sealing; done in one go, it held back every group commit waiting
 * on this process for its next statement (sampled under bench:events, the writer's connections sat
 * "idle in transaction" about half the time). 64 events are a fraction of a millisecond.
 */
export const EVENTS_PER_TURN = 64;

/** `items.map(map)`, giving the event loop a turn (I/O included) after every EVENTS_PER_TURN items. */
export async function mapInSlices<T, R>(items: readonly T[], map: (item: T, index: number) => R): Promise<R[]> {
  const mapped: R[] = [];
  for (let i = 0; i < items.length; i++) {
    if (i > 0 && i % EVENTS_PER_TURN === 0) await nextTurn();
    mapped.push(map(items[i], i));
  }
  return mapped;
}
