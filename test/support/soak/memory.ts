import { readFileSync } from 'node:fs';
import type { Check } from './checks';
import type { SoakCluster } from './cluster';

const SAMPLE_EVERY_MS = 5_000;
/** Slopes over a shorter stretch say more about noise than about growth: printed, not judged. */
const JUDGED_SPAN_MS = 10 * 60_000;
const MAX_SLOPE_PERCENT_PER_HOUR = 10;

interface RssSample {
  process: string;
  pid: number;
  at: number;
  rssKiB: number;
}

/** Resident memory of every Foresight process (each incarnation by its pid) and of redis-server, every 5 s, from /proc. */
export class RssSampler {
  private readonly samples: RssSample[] = [];
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly cluster: SoakCluster) {}

  start(): void {
    this.timer = setInterval(() => this.sample(), SAMPLE_EVERY_MS);
  }

  stop(): void {
    clearInterval(this.timer);
  }

  private sample(): void {
    const at = Date.now();
    const targets = [...this.cluster.processes.map((p) => ({ process: p.name, pid: p.current?.child.pid })), { process: 'redis-server', pid: this.cluster.redis.pid }];
    for (const { process, pid } of targets) {
      if (pid === undefined) continue;
      try {
        const rssKiB = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]);
        if (Number.isFinite(rssKiB)) this.samples.push({ process, pid, at, rssKiB });
      } catch {
        // The process is gone (a fault killed it) between listing and reading.
      }
    }
  }

  /**
   * Per process incarnation: RSS at the end of warm-up and at the end, and the least-squares slope of
   * the samples after warm-up in % of their mean per hour. Judged (< 10%/h) only when `judge` and the
   * incarnation was followed for at least 10 minutes after warm-up.
   */
  check(warmupEnd: number, judge: boolean): Check {
    const byIncarnation = new Map<string, RssSample[]>();
    for (const s of this.samples) {
      if (s.at < warmupEnd) continue;
      const key = `${s.process} pid ${s.pid}`;
      byIncarnation.set(key, [...(byIncarnation.get(key) ?? []), s]);
    }
    const lines = [`${'process'.padEnd(26)}${'followed min'.padStart(13)}${'first MiB'.padStart(11)}${'last MiB'.padStart(10)}${'max MiB'.padStart(9)}${'slope %/h'.padStart(11)}`];
    const failures: string[] = [];
    for (const [name, samples] of byIncarnation) {
      if (samples.length < 3) continue;
      const span = samples[samples.length - 1].at - samples[0].at;
      const slope = slopePercentPerHour(samples);
      const judged = judge && span >= JUDGED_SPAN_MS;
      lines.push(
        `${name.padEnd(26)}${(span / 60_000).toFixed(1).padStart(13)}${(samples[0].rssKiB / 1024).toFixed(0).padStart(11)}${(samples[samples.length - 1].rssKiB / 1024).toFixed(0).padStart(10)}` +
          `${(Math.max(...samples.map((s) => s.rssKiB)) / 1024).toFixed(0).padStart(9)}${slope.toFixed(1).padStart(11)}${judged ? '' : '  (not judged: followed < 10 min)'}`,
      );
      if (judged && slope > MAX_SLOPE_PERCENT_PER_HOUR) failures.push(`${name}: RSS grows ${slope.toFixed(1)}%/h after warm-up (bound ${MAX_SLOPE_PERCENT_PER_HOUR}%/h)`);
    }
    return { title: `memory: RSS slope after warm-up below ${MAX_SLOPE_PERCENT_PER_HOUR}%/h`, lines, failures };
  }
}

function slopePercentPerHour(samples: RssSample[]): number {
  const n = samples.length;
  const meanT = samples.reduce((a, s) => a + s.at, 0) / n;
  const meanR = samples.reduce((a, s) => a + s.rssKiB, 0) / n;
  const cov = samples.reduce((a, s) => a + (s.at - meanT) * (s.rssKiB - meanR), 0);
  const varT = samples.reduce((a, s) => a + (s.at - meanT) ** 2, 0);
  const perMs = varT === 0 ? 0 : cov / varT;
  return ((perMs * 3_600_000) / meanR) * 100;
}
