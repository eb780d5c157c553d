import autocannon from 'autocannon';

export interface LoadResult {
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  non2xx: number;
  errors: number;
}

export interface LoadOptions {
  headers?: Record<string, string>;
  connections?: number;
  durationSeconds?: number;
  method?: 'GET' | 'POST';
  body?: string;
  /** Fixed request rate (requests per second) instead of as fast as possible. */
  overallRate?: number;
  /** A new path (and query) for every request, e.g. a random user each time. */
  path?: () => string;
}

/** Drives one URL with autocannon (bounded in time, loopback only) and summarises it. */
export async function load(url: string, options: LoadOptions = {}): Promise<LoadResult> {
  const result = await autocannon({
    url,
    method: options.method ?? 'GET',
    headers: options.headers,
    body: options.body,
    connections: options.connections ?? 50,
    duration: options.durationSeconds ?? 10,
    overallRate: options.overallRate,
    ...(options.path && { requests: [{ setupRequest: (request) => ({ ...request, path: options.path?.() }) }] }),
  });
  return {
    requestsPerSecond: result.requests.average,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors,
  };
}

/**
 * Runs the cases in alternation for several rounds and keeps each case's median round, so drift on a
 * shared machine (JIT warm-up, other processes) hits baseline and subject alike.
 */
export async function interleaved(
  cases: Array<{ name: string; url: string; options?: LoadOptions }>,
  rounds = 3,
  durationSeconds = 5,
): Promise<Array<{ name: string; result: LoadResult }>> {
  for (const c of cases) await load(c.url, { ...c.options, durationSeconds: 3 });
  const results = cases.map(() => [] as LoadResult[]);
  for (let round = 0; round < rounds; round++) {
    for (const [i, c] of cases.entries()) results[i].push(await load(c.url, { ...c.options, durationSeconds }));
  }
  return cases.map((c, i) => {
    const sorted = [...results[i]].sort((a, b) => a.requestsPerSecond - b.requestsPerSecond);
    const all = results[i].map((r) => r.requestsPerSecond.toFixed(0)).join(', ');
    return { name: c.name, result: sorted[Math.floor(sorted.length / 2)], rounds: all };
  }).map(({ name, result, rounds: all }) => {
    console.log(`${name}: req/s per round ${all}`);
    return { name, result };
  });
}

/** Prints figures beside their in-run baseline and the ratio the target is stated in. */
export function report(title: string, rows: Array<{ name: string; result: LoadResult }>): void {
  console.log(`\n${title}`);
  console.log(`${'case'.padEnd(44)}${'req/s'.padStart(10)}${'p50 ms'.padStart(9)}${'p99 ms'.padStart(9)}${'non-2xx'.padStart(9)}`);
  for (const { name, result } of rows) {
    console.log(
      `${name.padEnd(44)}${result.requestsPerSecond.toFixed(0).padStart(10)}${result.p50Ms.toFixed(1).padStart(9)}${result.p99Ms.toFixed(1).padStart(9)}${String(result.non2xx + result.errors).padStart(9)}`,
    );
  }
}

export function ratioLine(label: string, value: number, baseline: number, target: string): void {
  const ratio = value / baseline;
  console.log(`${label.padEnd(44)}${ratio.toFixed(2).padStart(10)}   target ${target}`);
}
