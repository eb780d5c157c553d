import type { ClientRequest, IncomingMessage, RequestOptions } from 'node:http';
import autocannon from 'autocannon';
import { loadTest } from 'loadtest';

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
  /** Stop after this many requests instead of after a duration. */
  requests?: number;
  method?: 'GET' | 'POST';
  body?: string | Buffer;
  /** A new path (and query) for every request, e.g. a random user each time. */
  path?: () => string;
}

/**
 * Drives one URL as fast as it answers, with autocannon (closed loop, loopback only), and summarises
 * it. Throughput is timed from the start to the last response: autocannon's own duration ends on its
 * next one-second sample tick, which for a fixed number of requests can add most of a second.
 */
export async function load(url: string, options: LoadOptions = {}): Promise<LoadResult> {
  const started = performance.now();
  let lastResponse = started;
  const result = await new Promise<autocannon.Result>((resolve, reject) => {
    const instance = autocannon(
      {
        url,
        method: options.method ?? 'GET',
        headers: options.headers,
        body: options.body,
        connections: options.connections ?? 50,
        ...(options.requests ? { amount: options.requests } : { duration: options.durationSeconds ?? 10 }),
        ...(options.path && { requests: [{ setupRequest: (request) => ({ ...request, path: options.path?.() }) }] }),
      },
      (error: Error | null, finished) => (error ? reject(error) : resolve(finished)),
    );
    instance.on('response', () => (lastResponse = performance.now()));
  });
  return {
    requestsPerSecond: result.requests.total / ((lastResponse - started) / 1000),
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors,
  };
}

/**
 * Latency at a fixed request rate: an open loop (loadtest's requestsPerSecond), each request sent on
 * its schedule whether or not earlier ones have answered. autocannon's overallRate is not used for
 * this: it sends each connection's quota for the second in a burst, then waits, so it measures
 * latency under bursts of full concurrency instead of at the rate.
 */
export async function fixedRate(url: string, options: { headers?: Record<string, string>; rate: number; durationSeconds: number; path: () => string }): Promise<LoadResult> {
  const latencies: number[] = [];
  let failed = 0;
  const started = performance.now();
  await new Promise<void>((resolve, reject) =>
    loadTest(
      {
        url,
        requestsPerSecond: options.rate,
        maxSeconds: options.durationSeconds,
        agentKeepAlive: true,
        quiet: true,
        headers: options.headers,
        // Timed here rather than by loadtest, which truncates to whole milliseconds.
        requestGenerator: (
          _params: unknown,
          requestOptions: RequestOptions,
          client: (options: RequestOptions, onResponse: (response: IncomingMessage) => void) => ClientRequest,
          callback: (response: IncomingMessage) => void,
        ) => {
          const sent = performance.now();
          const request = client({ ...requestOptions, path: options.path() }, (response: IncomingMessage) => {
            response.on('end', () => latencies.push(performance.now() - sent));
            callback(response);
          });
          request.end();
          return request;
        },
        statusCallback: (error) => {
          if (error) failed++;
        },
      },
      (error?: Error) => (error ? reject(error) : resolve()),
    ),
  );
  const seconds = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * q))] ?? NaN;
  return { requestsPerSecond: latencies.length / seconds, p50Ms: at(0.5), p99Ms: at(0.99), non2xx: failed, errors: 0 };
}

/** An HTTP URL driven by autocannon, or a baseline that drives itself for the given seconds (a bulk load, say). */
export type LoadCase = { name: string; url: string; options?: LoadOptions } | { name: string; run: (durationSeconds: number) => Promise<LoadResult> };

/**
 * Runs the cases in alternation for several rounds and keeps each case's median round, so drift on a
 * shared machine (JIT warm-up, other processes) hits baseline and subject alike.
 */
export async function interleaved(cases: LoadCase[], rounds = 3, durationSeconds = 5): Promise<Array<{ name: string; result: LoadResult }>> {
  const measure = (c: LoadCase, seconds: number) => ('run' in c ? c.run(seconds) : load(c.url, { ...c.options, durationSeconds: seconds }));
  for (const c of cases) await measure(c, 3);
  const results = cases.map(() => [] as LoadResult[]);
  for (let round = 0; round < rounds; round++) {
    for (const [i, c] of cases.entries()) results[i].push(await measure(c, durationSeconds));
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
  // Three decimals: a ratio of 0.3475 printed as 0.35 would read as meeting a target of 0.35.
  console.log(`${label.padEnd(44)}${ratio.toFixed(3).padStart(10)}   target ${target}`);
}
