/** Time and chance behind one interface, so tests and platforms can supply their own. */
export interface Clock {
  now(): number;
  /** A number in [0, 1), for retry jitter. */
  random(): number;
}

export const systemClock: Clock = { now: () => Date.now(), random: () => Math.random() };
