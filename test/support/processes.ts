import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import nodeFlags from '../../scripts/node-flags.json';
import { eventually } from './eventually';
import { freePort } from './ports';

const ROOT = join(__dirname, '..', '..');
/** How long a process may take to start; TEST_START_TIMEOUT_MS raises it on a machine too loaded for a minute (the soak does). */
const startTimeoutMs = () => Number(process.env.TEST_START_TIMEOUT_MS ?? 60_000);

export interface RunningProcess {
  readonly baseUrl: string;
  readonly metricsUrl: string;
  readonly child: ChildProcess;
  /** Everything the process printed, for failure messages. */
  output(): string;
  /** Graceful stop (SIGTERM) and wait for exit. */
  stop(): Promise<void>;
  /** Hard kill, like a crashed pod. */
  kill(): Promise<void>;
}

/** How node runs a process: its command-line flags and the environment beside the service's own settings. */
export interface NodeRuntime {
  flags: readonly string[];
  env: Readonly<Record<string, string>>;
}

/** How the service runs in production (scripts/node-flags.json); NODE_DEFAULTS is plain node, the baseline bench:node-flags compares it with. */
export const SERVICE_RUNTIME: NodeRuntime = nodeFlags;
export const NODE_DEFAULTS: NodeRuntime = { flags: [], env: {} };

/** Starts the built API (`dist/apps/api/src/main.js`) with the flags and environment it runs with in production, and waits until /livez answers. */
export function startApi(env: Record<string, string>, port?: number, runtime = SERVICE_RUNTIME): Promise<RunningProcess> {
  return startServer([...runtime.flags, join(ROOT, 'dist/apps/api/src/main.js')], { ...runtime.env, ...env }, 3, port);
}

/**
 * Starts a node server that honours PORT and METRICS_PORT and waits until its /livez answers. A
 * free port can be taken by another suite between choosing it and the server binding it; the
 * server is then started again on new ports.
 */
export async function startServer(nodeArgs: string[], env: Record<string, string>, attempts = 3, chosenPort?: number): Promise<RunningProcess> {
  // A chosen port (an address the configuration must name before start, as an OpenID redirect URL) is not changed on a retry.
  const port = chosenPort ?? (await freePort());
  const metricsPort = await freePort();
  const child = spawn(process.execPath, nodeArgs, {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'warn', HOST: '127.0.0.1', ...env, PORT: String(port), METRICS_PORT: String(metricsPort) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const running = wrap(child, `http://127.0.0.1:${port}`, `http://127.0.0.1:${metricsPort}`);
  const outcome = await started(running, `${nodeArgs.join(' ')}`, async () => ((await fetch(`${running.baseUrl}/livez`).then((r) => r.ok, () => false)) ? true : undefined));
  if (outcome === 'live') return running;
  if (attempts > 1 && chosenPort === undefined && running.output().includes('EADDRINUSE')) return startServer(nodeArgs, env, attempts - 1);
  throw new Error(`${nodeArgs.join(' ')} exited with ${child.exitCode} during start:\n${running.output()}`);
}

/** Starts the built worker, with the flags and environment it runs with in production, and waits until it reports that its processors run. */
export async function startWorker(env: Record<string, string>, runtime = SERVICE_RUNTIME): Promise<RunningProcess> {
  const metricsPort = await freePort();
  const child = spawn(process.execPath, [...runtime.flags, join(ROOT, 'dist/apps/worker/src/main.js')], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'info', HOST: '127.0.0.1', ...runtime.env, ...env, METRICS_PORT: String(metricsPort) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const running = wrap(child, '', `http://127.0.0.1:${metricsPort}`);
  const outcome = await started(running, 'worker', () => (running.output().includes('Foresight worker running') ? true : undefined));
  if (outcome === 'exited') throw new Error(`worker exited with ${child.exitCode} during start:\n${running.output()}`);
  return running;
}

/** Waits until `ready` holds or the process exits; one that does neither within the start timeout is killed, its output in the error. */
async function started(running: RunningProcess, what: string, ready: () => Promise<true | undefined> | true | undefined): Promise<'live' | 'exited'> {
  try {
    return await eventually(`${what} to start`, async () => (running.child.exitCode !== null ? 'exited' : (await ready()) && 'live'), startTimeoutMs());
  } catch {
    await running.kill();
    throw new Error(`${what} did not start within ${startTimeoutMs()} ms:\n${running.output()}`);
  }
}

function wrap(child: ChildProcess, baseUrl: string, metricsUrl: string): RunningProcess {
  const chunks: string[] = [];
  child.stdout?.on('data', (d: Buffer) => chunks.push(d.toString()));
  child.stderr?.on('data', (d: Buffer) => chunks.push(d.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const signal = async (name: NodeJS.Signals): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) child.kill(name);
    await exited;
  };
  return { baseUrl, metricsUrl, child, output: () => chunks.join(''), stop: () => signal('SIGTERM'), kill: () => signal('SIGKILL') };
}

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs the built CLI with `--json` and the suite's environment. */
export function runCli(env: Record<string, string>, args: string[]): Promise<CliResult> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [join(ROOT, 'dist/apps/cli/src/main.js'), '--json', ...args], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('exit', (code) => resolve({ code: code ?? 1, stdout, stderr }));
  });
}

export async function cliJson<T>(env: Record<string, string>, args: string[]): Promise<T> {
  const result = await runCli(env, args);
  if (result.code !== 0) throw new Error(`cli ${args.join(' ')} failed (${result.code}): ${result.stderr}`);
  return JSON.parse(result.stdout) as T;
}

/** The processes `pid` started that are still its children (a worker's training processes), from /proc. */
export function childrenOf(pid: number): number[] {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').split(' ').filter(Boolean).map(Number);
  } catch {
    return []; // gone meanwhile
  }
}

/** Whether `pid` still runs: a zombie (exited, not yet reaped by whoever adopted it) does not. */
export function isRunning(pid: number): boolean {
  const state = statFields(pid)?.[0];
  return state !== undefined && state !== 'Z' && state !== 'X';
}

type StatusFigure = 'VmRSS' | 'VmHWM' | 'RssFile';

/**
 * The memory figures of /proc/<pid>/status in KiB, read at one instant: VmRSS (resident now), VmHWM (the
 * most it was resident) and RssFile (the resident pages mapped from files: node's binary and the shared
 * libraries, as far as they have been touched). NaN for a field that is missing (a zombie); throws when
 * the process is gone.
 */
export function statusFiguresKiB(pid: number): Record<StatusFigure, number> {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const figure = (field: StatusFigure) => Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(status)?.[1]);
  return { VmRSS: figure('VmRSS'), VmHWM: figure('VmHWM'), RssFile: figure('RssFile') };
}

/**
 * The resident KiB of the process's [heap] mapping: glibc's main malloc arena, which grows by brk and gives
 * pages back only from its top, so it stays at the highest point its blocks in use reached; 0 without
 * one. Throws when the process is gone.
 */
export function mallocHeapKiB(pid: number): number {
  const smaps = readFileSync(`/proc/${pid}/smaps`, 'utf8');
  const heap = smaps.indexOf(' [heap]\n');
  return heap < 0 ? 0 : Number(/^Rss:\s+(\d+) kB/m.exec(smaps.slice(heap))?.[1] ?? 0);
}

/** One figure of statusFiguresKiB: VmRSS (resident now) or VmHWM (the most it was resident). */
export function statusKiB(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  return statusFiguresKiB(pid)[field];
}

/** Clock ticks per second of /proc/<pid>/stat's times (USER_HZ, 100 on Linux). */
const TICKS_PER_SECOND = 100;

/**
 * CPU seconds (user + system) a process has used so far; 0 once it has exited. With `endedChildren`,
 * also what its children used that have ended and been waited for (a worker's training processes). Linux /proc only.
 */
export function processCpuSeconds(pid: number, { endedChildren = false } = {}): number {
  const fields = statFields(pid)?.map(Number);
  if (!fields) return 0;
  // utime, stime, cutime and cstime are the stat file's fields 14 to 17.
  return (fields[11] + fields[12] + (endedChildren ? fields[13] + fields[14] : 0)) / TICKS_PER_SECOND;
}

/** /proc/<pid>/stat's fields from the third (state) on, after the command name (in parentheses, and it may hold spaces); undefined once the process is gone. */
function statFields(pid: number): string[] | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return undefined;
  }
}
