import { processCpuSeconds } from '../../support/processes';
import type { TestSuite } from '../../support/suite';

/** The processes whose CPU one measurement charges to each named side (the API, Postgres, the load generator…). */
export type CpuSides = Record<string, () => Promise<number[]>>;

/** A side of one process, by its id (none when it has not started). */
export function processSide(pid: number | undefined): () => Promise<number[]> {
  return async () => (pid === undefined ? [] : [pid]);
}

/** Postgres's side: the benchmark database's backends and the WAL writer and checkpointer (shared with anything else on the machine). */
export function postgresProcesses(suite: TestSuite): () => Promise<number[]> {
  return async () =>
    (await suite.sql<{ pid: number }>(`SELECT pid FROM pg_stat_activity WHERE datname = current_database() OR backend_type IN ('walwriter', 'checkpointer')`)).map(
      (row) => row.pid,
    );
}

/** CPU seconds per side over one run of `work`; the process ids are read again after it, so processes started during it count. */
export async function cpuDuring<T>(sides: CpuSides, work: () => Promise<T>): Promise<{ result: T; seconds: Record<string, number> }> {
  const names = Object.keys(sides);
  const before = await Promise.all(names.map(async (name) => new Map((await sides[name]()).map((pid) => [pid, processCpuSeconds(pid)]))));
  const result = await work();
  const seconds: Record<string, number> = {};
  for (const [i, name] of names.entries()) {
    const pids = new Set([...before[i].keys(), ...(await sides[name]())]);
    seconds[name] = [...pids].reduce((sum, pid) => sum + Math.max(0, processCpuSeconds(pid) - (before[i].get(pid) ?? 0)), 0);
  }
  return { result, seconds };
}

/**
 * CPU seconds per side and the units of work they handled (events, requests, users), summed over
 * every run of one load case (warm-up included).
 */
export class CpuPerUnit {
  private readonly seconds: Record<string, number> = {};
  private units = 0;

  /** `unit` names what is counted, in the plural (`events`, `users`). */
  constructor(
    private readonly sides: CpuSides,
    private readonly unit: string,
  ) {}

  /** Runs `run`, charging its CPU to the `unitsOf(result)` units it handled. */
  async measure<T>(run: () => Promise<T>, unitsOf: (result: T) => number): Promise<T> {
    const { result, seconds } = await cpuDuring(this.sides, run);
    this.units += unitsOf(result);
    for (const [side, used] of Object.entries(seconds)) this.seconds[side] = (this.seconds[side] ?? 0) + used;
    return result;
  }

  /** µs of CPU per unit for one side; NaN before any run. */
  microseconds(side?: string): number {
    const used = side === undefined ? Object.values(this.seconds).reduce((a, b) => a + b, 0) : (this.seconds[side] ?? 0);
    return (used * 1e6) / this.units;
  }

  /** µs of CPU per unit for each side and in total, and the units/s that total allows on `cores` cores doing nothing else. */
  summary(cores: number): string {
    const sides = Object.keys(this.seconds).map((side) => `${side} ${this.microseconds(side).toFixed(1)}`);
    const total = this.microseconds();
    return `${sides.join(', ')}; total ${total.toFixed(1)} µs -> at most ${((cores * 1e6) / total).toFixed(0)} ${this.unit}/s on ${cores} idle cores`;
  }
}
