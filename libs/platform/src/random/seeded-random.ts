/** A source of uniform numbers in [0, 1). */
export type Random = () => number;

/**
 * mulberry32: 32 bits of state, a few integer operations per draw. Reproducible streams for
 * training (same data, same model) and for demo data (same seed, same events).
 */
export function createRandom(seed: number): Random {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
