/** Every bucket start of a window (epoch ms, UTC hours or days) and each start's position. */
export function bucketGrid(bucket: 'hour' | 'day', since: string, until: string): { times: number[]; index: Map<number, number> } {
  const step = bucket === 'hour' ? 3_600_000 : 86_400_000;
  const times: number[] = [];
  for (let t = Math.floor(Date.parse(since) / step) * step; t < Date.parse(until); t += step) times.push(t);
  return { times, index: new Map(times.map((t, k) => [t, k])) };
}
