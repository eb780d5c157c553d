import type { Random } from '@foresight/platform';
import type { SoakCluster } from './cluster';

export type FaultKind =
  | 'kill -9 of an API'
  | 'kill -9 of a worker'
  | 'PostgreSQL fast restart'
  | 'PostgreSQL immediate restart'
  | 'postmaster SIGSTOP 10 s'
  | 'Redis restart with AOF'
  | 'Redis restart, data lost';

export const FAULT_KINDS: readonly FaultKind[] = [
  'kill -9 of an API',
  'kill -9 of a worker',
  'PostgreSQL fast restart',
  'PostgreSQL immediate restart',
  'postmaster SIGSTOP 10 s',
  'Redis restart with AOF',
  'Redis restart, data lost',
];

const PAUSE_MS = 10_000;

/** One fault as it happened: from the moment it was injected until the component was back (or the pause ended). */
export interface FaultWindow {
  kind: FaultKind;
  start: number;
  end: number;
  /** Where the next fault is due (or the load ends): the window its recovery is judged in. */
  until: number;
}

/**
 * Every fault kind once per round, in an order drawn from `random` (the seed makes a run repeatable),
 * spread evenly over [startMs, endMs) after `begin`. Faults never overlap: each waits for the previous
 * one's component to be back, and then for at least `quietMs` (so recovery from each can be judged
 * before the next; a slow fault delays the rest). The last API and worker are the ones killed: the
 * first of each runs the whole time, so its memory can be followed.
 */
export async function injectFaults(cluster: SoakCluster, random: Random, begin: number, startMs: number, endMs: number, rounds = 1, quietMs = 0): Promise<FaultWindow[]> {
  const schedule = Array.from({ length: rounds }, () => shuffled(FAULT_KINDS, random)).flat();
  const spacing = (endMs - startMs) / schedule.length;
  const windows: FaultWindow[] = [];
  for (const [i, kind] of schedule.entries()) {
    const due = Math.max(begin + startMs + i * spacing, windows[windows.length - 1]?.until ?? 0);
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, due - Date.now())));
    const start = Date.now();
    console.log(`[${new Date(start).toISOString()}] fault: ${kind}`);
    await inject(cluster, kind);
    const end = Date.now();
    console.log(`[${new Date(end).toISOString()}] fault over after ${((end - start) / 1000).toFixed(1)} s: ${kind}`);
    windows.push({ kind, start, end, until: Math.max(end + quietMs, begin + startMs + (i + 1) * spacing) });
  }
  return windows;
}

async function inject(cluster: SoakCluster, kind: FaultKind): Promise<void> {
  switch (kind) {
    case 'kill -9 of an API':
      return cluster.apis[cluster.apis.length - 1].crash();
    case 'kill -9 of a worker':
      return cluster.workers[cluster.workers.length - 1].crash();
    case 'PostgreSQL fast restart':
      return cluster.postgres.restart('fast');
    case 'PostgreSQL immediate restart':
      return cluster.postgres.restart('immediate');
    case 'postmaster SIGSTOP 10 s':
      return cluster.postgres.pause(PAUSE_MS);
    case 'Redis restart with AOF':
      return cluster.redis.restartKeepingData();
    case 'Redis restart, data lost':
      return cluster.redis.restartLosingData();
  }
}

function shuffled<T>(items: readonly T[], random: Random): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}
