/**
 * Every bucket start of a window (epoch ms, UTC hours or days), each start's position, and whether the
 * last bucket is unfinished (the window ends inside it: the current hour or day, counted so far).
 */
export function bucketGrid(bucket: 'hour' | 'day', since: string, until: string): { times: number[]; index: Map<number, number>; lastIsPartial: boolean } {
  const step = bucket === 'hour' ? 3_600_000 : 86_400_000;
  const end = Date.parse(until);
  const times: number[] = [];
  for (let t = Math.floor(Date.parse(since) / step) * step; t < end; t += step) times.push(t);
  return { times, index: new Map(times.map((t, k) => [t, k])), lastIsPartial: end % step !== 0 };
}
