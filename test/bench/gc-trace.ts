// node -r @swc-node/register test/bench/gc-trace.ts <process log> [minutes per row, default 2]
// What V8 collected in one process of a soak run with SOAK_GC_TRACE=1 and SOAK_LOGS (node's
// --trace-gc-nvp lines in the process's log): per stretch of its life, the scavenges and what they
// promoted into the old space (objects that outlived two of them), the full collections with what
// survived each (the live heap: flat when nothing leaks, whatever RSS does), and the heap V8 held
// after the last collection. Tells a leak (what survives full collections grows) from garbage that
// reaches the old space and waits there for the next full collection.
import { readFileSync } from 'node:fs';

interface Collection {
  /** Minutes since the process started. */
  atMin: number;
  /** "s" for a scavenge (young generation), "mc" and others for full collections. */
  gc: string;
  promoted?: number;
  end_object_size: number;
  end_memory_size: number;
}

interface Stretch {
  scavenges: number;
  promotedBytes: number;
  /** Bytes live after each full collection. */
  survivedFull: number[];
  heldBytes: number;
}

const LINE = /\s(\d+) ms: GC: (\{.*\})\s*$/;
const mib = (bytes: number) => (bytes / 1024 / 1024).toFixed(1);

function collections(path: string): Collection[] {
  return readFileSync(path, 'utf8')
    .split('\n')
    .flatMap((line) => {
      const match = LINE.exec(line);
      return match ? [{ ...(JSON.parse(match[2]) as Omit<Collection, 'atMin'>), atMin: Number(match[1]) / 60_000 }] : [];
    });
}

const [path, perArg = '2'] = process.argv.slice(2);
if (path === undefined) {
  console.error('usage: gc-trace.ts <process log> [minutes per row]');
  process.exit(2);
}
const per = Number(perArg);
const stretches = new Map<number, Stretch>();
for (const c of collections(path)) {
  const from = Math.floor(c.atMin / per) * per;
  const stretch = stretches.get(from) ?? { scavenges: 0, promotedBytes: 0, survivedFull: [], heldBytes: 0 };
  if (c.gc === 's') {
    stretch.scavenges++;
    stretch.promotedBytes += c.promoted ?? 0;
  } else {
    stretch.survivedFull.push(c.end_object_size);
  }
  stretch.heldBytes = c.end_memory_size;
  stretches.set(from, stretch);
}
console.log(`${'minutes'.padEnd(10)}${'scavenges'.padStart(10)}${'promoted MiB'.padStart(14)}${'full'.padStart(6)}${'held MiB'.padStart(10)}  live after each full collection (MiB)`);
for (const [from, s] of stretches) {
  console.log(
    `${`${from}-${from + per}`.padEnd(10)}${String(s.scavenges).padStart(10)}${mib(s.promotedBytes).padStart(14)}${String(s.survivedFull.length).padStart(6)}${mib(s.heldBytes).padStart(10)}  ${s.survivedFull.map(mib).join(' ')}`,
  );
}
