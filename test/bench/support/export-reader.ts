// One client reading GET /v1/export/predictions as NDJSON, in its own process so that its peak RSS
// is its own. Prints {rows, seconds, earlyRssMb, peakRssMb} as JSON. Spawned by sdk-export.bench.ts.
//   raw: fetch, counting newline bytes (reads the stream, parses nothing): the floor
//   sdk: @foresight/node's predictions.export() iterator from the published build, one object per row
//   buffered: fetch, response.text(), split and parse: what a client that waits for the whole body costs
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

type Mode = 'raw' | 'sdk' | 'buffered';
const [mode, host, token, since, expectedRows] = process.argv.slice(2) as [Mode, string, string, string, string];
const url = `${host}/v1/export/predictions?since=${since}`;
const headers = { authorization: `Bearer ${token}`, accept: 'application/x-ndjson' };
/** RSS once a tenth of the rows are in (null when the client sees no row before the end): with flat memory, the peak stays close to it. */
const earlyAt = Math.floor(Number(expectedRows) / 10);
let earlyRssMb: number | null = null;

async function rawRows(): Promise<number> {
  const response = await fetch(url, { headers });
  let rows = 0;
  for await (const chunk of response.body as AsyncIterable<Uint8Array>) {
    for (const byte of chunk) if (byte === 10 && ++rows === earlyAt) earlyRssMb = rssMb();
  }
  return rows;
}

async function sdkRows(): Promise<number> {
  const { createApiClient } = (await import(join(__dirname, '..', '..', '..', 'dist', 'packages', 'node', 'index.cjs'))) as typeof import('@foresight/node');
  const api = createApiClient({ token, host });
  let rows = 0;
  for await (const row of api.predictions.export({ query: { since } })) {
    if (typeof row.confidence !== 'number') throw new Error('a row without confidence');
    if (++rows === earlyAt) earlyRssMb = rssMb();
  }
  return rows;
}

async function bufferedRows(): Promise<number> {
  const response = await fetch(url, { headers });
  const rows = (await response.text()).split('\n').filter(Boolean).map((line) => JSON.parse(line) as { confidence: number });
  return rows.length;
}

function rssMb(): number {
  return process.memoryUsage().rss / 1024 / 1024;
}

async function main(): Promise<void> {
  const started = performance.now();
  const rows = await { raw: rawRows, sdk: sdkRows, buffered: bufferedRows }[mode]();
  const seconds = (performance.now() - started) / 1000;
  const peakRssMb = Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'))?.[1] ?? 0) / 1024;
  process.stdout.write(`${JSON.stringify({ rows, seconds, earlyRssMb, peakRssMb })}\n`);
}

void main();
