import { childrenOf, mallocHeapKiB, statusFiguresKiB, statusKiB } from '../processes';
import { leastSquaresSlope } from '../statistics';
import type { Check } from './checks';
import type { SoakCluster } from './cluster';

const SAMPLE_EVERY_MS = 5_000;
/** Slopes over a shorter stretch say more about noise than about growth: printed, not judged. */
const JUDGED_SPAN_MS = 10 * 60_000;
const MAX_SLOPE_PERCENT_PER_HOUR = 10;
const METRICS_TIMEOUT_MS = 2_000;

export interface RssSample {
  process: string;
  pid: number;
  at: number;
  rssKiB: number;
  /** The resident pages mapped from files (node's binary, ONNX Runtime's and the other shared libraries): they come in as code paths first run, and the kernel can drop them under pressure. */
  rssFileKiB: number;
  /** glibc's main malloc arena as resident (mallocHeapKiB): part of the memory outside V8, where its high-water mark shows. */
  mallocHeapKiB: number;
  /** The process's own view (prom-client on its METRICS_PORT), when it answered: V8's heap as reserved (its young generation included, which V8 grows and shrinks with the load), and memory outside the heap (Buffers, native addons' reported allocations). */
  heapTotalKiB?: number;
  externalKiB?: number;
  /** V8's heap in use, and its old space in use (what survives scavenges: where a leak of JS objects shows). */
  heapUsedKiB?: number;
  oldSpaceUsedKiB?: number;
  /** V8's code space as reserved (compiled code: grows as more paths get optimized) and its large-object space in use (objects over ~128 KiB, big strings and arrays): in the samples file only. */
  codeSpaceKiB?: number;
  largeObjectSpaceUsedKiB?: number;
}

/**
 * Resident memory of every Foresight process (each incarnation by its pid) and of redis-server, every
 * 5 s, from /proc; for Foresight processes also V8's heap size and external memory, from /metrics,
 * so growth can be told apart: V8's heap (our objects, or V8 resizing its generations), external
 * (Buffers), or neither (native: ONNX Runtime sessions, worker threads, the allocator keeping pages).
 */
export class RssSampler {
  private readonly samples: RssSample[] = [];
  /** Per worker, its training processes (one per training run, gone when it ends): how many were seen, and the most RSS one held. */
  private readonly trainingRuns = new Map<string, { pids: Set<number>; peakKiB: number }>();
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly cluster: SoakCluster) {}

  start(): void {
    this.timer = setInterval(() => this.sample(), SAMPLE_EVERY_MS);
  }

  stop(): void {
    clearInterval(this.timer);
  }

  /** Every sample taken, for a look at the shape of the growth (SOAK_MEMORY_SAMPLES writes them to a file). */
  all(): readonly RssSample[] {
    return this.samples;
  }

  private sample(): void {
    const at = Date.now();
    const targets = [
      ...this.cluster.processes.map((p) => ({ process: p.name, pid: p.current?.child.pid, metricsUrl: p.current?.metricsUrl })),
      { process: 'redis-server', pid: this.cluster.redis.pid, metricsUrl: undefined },
    ];
    for (const { process, pid, metricsUrl } of targets) {
      if (pid === undefined) continue;
      try {
        const { VmRSS: rssKiB, RssFile: rssFileKiB } = statusFiguresKiB(pid);
        if (!Number.isFinite(rssKiB)) continue;
        const sample: RssSample = { process, pid, at, rssKiB, rssFileKiB, mallocHeapKiB: mallocHeapKiB(pid) };
        this.samples.push(sample);
        if (metricsUrl !== undefined) void heapOf(metricsUrl).then((heap) => Object.assign(sample, heap));
      } catch {
        // The process is gone (a fault killed it) between listing and reading.
      }
    }
    for (const worker of this.cluster.workers) {
      const pid = worker.current?.child.pid;
      if (pid !== undefined) this.sampleTrainingRuns(worker.name, pid);
    }
  }

  private sampleTrainingRuns(process: string, pid: number): void {
    for (const child of childrenOf(pid)) {
      let rssKiB: number;
      try {
        rssKiB = statusKiB(child, 'VmRSS');
      } catch {
        continue; // its run ended between listing and reading
      }
      if (!Number.isFinite(rssKiB)) continue;
      const runs = this.trainingRuns.get(process) ?? { pids: new Set<number>(), peakKiB: 0 };
      runs.pids.add(child);
      runs.peakKiB = Math.max(runs.peakKiB, rssKiB);
      this.trainingRuns.set(process, runs);
    }
  }

  /**
   * Per process incarnation, from `warmupMs` after it was first seen (the load's start for the first
   * ones, the restart for those a fault killed: a restarted process warms up again): RSS at the start
   * of that stretch and at its end, and the least-squares slope of its samples in % of their mean per
   * hour, beside the same for V8's heap size, its old space in use and external memory, and the slopes
   * of the anonymous memory outside the heap, of glibc's main arena and of the file-backed pages (context,
   * not judged; see outsideV8, mallocHeap and fileBacked). Judged (< 10%/h) only when `judge`
   * and the incarnation was followed for at least 10 minutes after its warm-up.
   */
  check(warmupMs: number, judge: boolean): Check {
    const byIncarnation = new Map<string, RssSample[]>();
    for (const s of this.samples) {
      const key = `${s.process} pid ${s.pid}`;
      byIncarnation.set(key, [...(byIncarnation.get(key) ?? []), s]);
    }
    const lines = [
      `warm-up left out: the first ${(warmupMs / 60_000).toFixed(1)} min of each process (V8 growing its heap and young generation to the load, ONNX sessions and bounded caches filling)`,
      `${'process'.padEnd(26)}${'followed min'.padStart(13)}${'first MiB'.padStart(11)}${'last MiB'.padStart(10)}${'max MiB'.padStart(9)}${'slope %/h'.padStart(11)}` +
        `${'V8 heap MiB'.padStart(16)}${'slope %/h'.padStart(11)}${'old in use MiB'.padStart(17)}${'slope %/h'.padStart(11)}${'external MiB'.padStart(15)}${'slope %/h'.padStart(11)}` +
        `${'outside V8 MiB'.padStart(16)}${'MiB/h'.padStart(10)}${'malloc heap MiB'.padStart(17)}${'MiB/h'.padStart(10)}${'file-backed MiB'.padStart(17)}${'MiB/h'.padStart(10)}`,
    ];
    const failures: string[] = [];
    for (const [name, all] of byIncarnation) {
      const samples = all.filter((s) => s.at >= all[0].at + warmupMs);
      if (samples.length < 3) continue;
      const span = samples[samples.length - 1].at - samples[0].at;
      const slope = slopePercentPerHour(samples, (s) => s.rssKiB);
      const judged = judge && span >= JUDGED_SPAN_MS;
      lines.push(
        `${name.padEnd(26)}${(span / 60_000).toFixed(1).padStart(13)}${mib(samples[0].rssKiB).padStart(11)}${mib(samples[samples.length - 1].rssKiB).padStart(10)}` +
          `${mib(Math.max(...samples.map((s) => s.rssKiB))).padStart(9)}${slope.toFixed(1).padStart(11)}` +
          `${breakdown(samples, (s) => s.heapTotalKiB, 16)}${breakdown(samples, (s) => s.oldSpaceUsedKiB, 17)}${breakdown(samples, (s) => s.externalKiB, 15)}` +
          `${outsideV8(samples)}${mallocHeap(samples)}${fileBacked(samples)}${judged ? '' : '  (not judged: followed < 10 min after its warm-up)'}`,
      );
      if (judged && slope > MAX_SLOPE_PERCENT_PER_HOUR) failures.push(`${name}: RSS grows ${slope.toFixed(1)}%/h after warm-up (bound ${MAX_SLOPE_PERCENT_PER_HOUR}%/h)`);
    }
    // A training process lives for one run and returns its memory when it exits: its size is shown, not a slope.
    for (const [process, runs] of this.trainingRuns) lines.push(`${process}'s training processes: ${runs.pids.size} seen, the largest held ${mib(runs.peakKiB)} MiB (not judged: each exits after its run)`);
    return { title: `memory: RSS slope after warm-up below ${MAX_SLOPE_PERCENT_PER_HOUR}%/h`, lines, failures };
  }
}

async function heapOf(metricsUrl: string): Promise<Pick<RssSample, 'heapTotalKiB' | 'externalKiB' | 'heapUsedKiB' | 'oldSpaceUsedKiB' | 'codeSpaceKiB' | 'largeObjectSpaceUsedKiB'>> {
  try {
    const text = await (await fetch(`${metricsUrl}/metrics`, { signal: AbortSignal.timeout(METRICS_TIMEOUT_MS) })).text();
    const gauge = (name: string) => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1]) / 1024;
    return {
      heapTotalKiB: gauge('nodejs_heap_size_total_bytes'),
      externalKiB: gauge('nodejs_external_memory_bytes'),
      heapUsedKiB: gauge('nodejs_heap_size_used_bytes'),
      oldSpaceUsedKiB: gauge('nodejs_heap_space_size_used_bytes\\{space="old"\\}'),
      codeSpaceKiB: gauge('nodejs_heap_space_size_total_bytes\\{space="code"\\}'),
      largeObjectSpaceUsedKiB: gauge('nodejs_heap_space_size_used_bytes\\{space="large_object"\\}'),
    };
  } catch {
    // A process busy past the timeout, or killed meanwhile: its RSS sample stands alone.
    return {};
  }
}

const mib = (kib: number) => (kib / 1024).toFixed(0);

/** "first→last" MiB and the slope of one of the process's own figures, over the samples that have it. */
function breakdown(samples: RssSample[], figure: (s: RssSample) => number | undefined, width: number): string {
  const known = samples.filter((s) => Number.isFinite(figure(s)));
  if (known.length < 3) return `${'-'.padStart(width)}${'-'.padStart(11)}`;
  const value = (s: RssSample) => figure(s) as number;
  return `${`${mib(value(known[0]))}→${mib(value(known[known.length - 1]))}`.padStart(width)}${slopePercentPerHour(known, value).toFixed(1).padStart(11)}`;
}

/**
 * Anonymous RSS less V8's heap size: what lives outside V8 (native allocations of node, ONNX Runtime and
 * the allocator's retained pages, Buffers, thread stacks), in MiB per hour: V8's heap size swings by tens of MiB
 * as its old space fills between full collections (minutes apart), which a slope over a few of those
 * swings reads as growth or shrinkage; this part swings less. Approximate: the heap size counts pages V8 committed
 * and has not all touched, so this part moves against it when V8 resizes (in a 15-minute soak the
 * API's RSS read at 3-minute points stayed within 7 MiB while this slope said +33 MiB/h).
 */
function outsideV8(samples: RssSample[]): string {
  const known = samples.filter((s) => Number.isFinite(s.heapTotalKiB));
  if (known.length < 3) return `${'-'.padStart(16)}${'-'.padStart(10)}`;
  return firstLastAndMiBPerHour(known, (s) => s.rssKiB - s.rssFileKiB - (s.heapTotalKiB as number), 16);
}

/**
 * glibc's main malloc arena (part of "outside V8"), first→last and in MiB per hour. It gives pages back
 * from its top only, so it follows the largest native working set so far: in a 30-minute soak it rose
 * about 0.7 MiB a minute in every API and worker while malloc_stats() put the blocks in use in it
 * between 19 and 31 MiB at three points.
 */
function mallocHeap(samples: RssSample[]): string {
  return firstLastAndMiBPerHour(samples, (s) => s.mallocHeapKiB, 17);
}

/** The file-backed part of RSS, first→last and in MiB per hour: code being paged in as it first runs, which levels off at what the load uses of the binaries. */
function fileBacked(samples: RssSample[]): string {
  return firstLastAndMiBPerHour(samples, (s) => s.rssFileKiB, 17);
}

function firstLastAndMiBPerHour(samples: RssSample[], value: (s: RssSample) => number, width: number): string {
  const mibPerHour = (leastSquaresSlope(samples.map((s) => [s.at, value(s)] as const)) * 3_600_000) / 1024;
  return `${`${mib(value(samples[0]))}→${mib(value(samples[samples.length - 1]))}`.padStart(width)}${mibPerHour.toFixed(1).padStart(10)}`;
}

function slopePercentPerHour(samples: RssSample[], value: (s: RssSample) => number): number {
  const meanV = samples.reduce((a, s) => a + value(s), 0) / samples.length;
  const perMs = leastSquaresSlope(samples.map((s) => [s.at, value(s)] as const));
  return ((perMs * 3_600_000) / meanV) * 100;
}
