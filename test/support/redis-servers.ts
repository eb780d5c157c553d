import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { eventually } from './eventually';
import { freePort } from './ports';

/** The password every node of a test topology requires, so the tests exercise REDIS_PASSWORD. */
export const NODE_PASSWORD = 'node-secret';

/** One redis-server (or sentinel) process on a free loopback port, in its own directory. */
export class RedisProcess {
  private constructor(
    readonly port: number,
    readonly child: ChildProcess,
    private readonly output: string[],
  ) {}

  /** Starts `redis-server <args>` (a config file first, if any) and waits until it answers PING. */
  static async start(dir: string, args: (port: number) => string[], password: string): Promise<RedisProcess> {
    const port = await freePort();
    const child = spawn('redis-server', args(port), { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
    const output: string[] = [];
    child.stdout?.on('data', (chunk: Buffer) => output.push(chunk.toString()));
    child.stderr?.on('data', (chunk: Buffer) => output.push(chunk.toString()));
    const server = new RedisProcess(port, child, output);
    await eventually(`redis-server on ${port} to answer`, async () => {
      if (child.exitCode !== null) throw new Error(`redis-server on ${port} exited: ${output.join('')}`);
      return (await server.ask(password, (redis) => redis.ping())) === 'PONG' ? true : undefined;
    }, 20_000);
    return server;
  }

  /** A short-lived client of this very process (no topology discovery): close it after use. */
  client(password: string): Redis {
    return new Redis({ port: this.port, host: '127.0.0.1', password, maxRetriesPerRequest: 0, retryStrategy: () => null });
  }

  /** Asks this process one command and closes the connection. */
  async ask<T>(password: string, command: (redis: Redis) => Promise<T>): Promise<T> {
    const redis = this.client(password);
    try {
      return await command(redis);
    } finally {
      redis.disconnect();
    }
  }

  /** kill -9: no shutdown, no last write, exactly what a crashed host does. */
  crash(): void {
    this.child.kill('SIGKILL');
  }

  /** SIGSTOP: the process keeps its sockets but answers nothing (a stalled host); `resume` lets it go on. */
  pause(): void {
    this.child.kill('SIGSTOP');
  }

  resume(): void {
    this.child.kill('SIGCONT');
  }

  get alive(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  async stop(): Promise<void> {
    if (!this.alive) return;
    const exited = new Promise((resolve) => this.child.once('exit', resolve));
    this.child.kill('SIGKILL');
    await exited;
  }

  log(): string {
    return this.output.join('').slice(-3000);
  }
}

/** Starts servers at once (each waits only for its own PING), in order; if one fails, stops those that started and throws. */
export async function startTogether(starts: Array<() => Promise<RedisProcess>>): Promise<RedisProcess[]> {
  const results = await Promise.allSettled(starts.map((start) => start()));
  const failed = results.find((result): result is PromiseRejectedResult => result.status === 'rejected');
  const started = results.flatMap((result) => (result.status === 'fulfilled' ? [result.value] : []));
  if (failed) {
    await Promise.all(started.map((server) => server.stop()));
    throw failed.reason;
  }
  return started;
}

/** Settings every test node shares: loopback, a password, no eviction, AOF as production needs. */
export function nodeArgs(port: number): string[] {
  return [
    '--port', String(port), '--bind', '127.0.0.1', '--requirepass', NODE_PASSWORD, '--masterauth', NODE_PASSWORD,
    '--appendonly', 'yes', '--save', '', '--maxmemory-policy', 'noeviction',
  ];
}

/**
 * A suite's environment moved onto a topology: its own Redis server only serves the CLI that set the
 * suite up (migrations, organizations); every process started with this environment runs on the topology.
 */
export function onTopology(suiteEnv: Record<string, string>, topologyEnv: Record<string, string>): Record<string, string> {
  const { REDIS_URL: _singleServer, ...rest } = suiteEnv;
  return { ...rest, ...topologyEnv };
}

/** A temporary directory for one topology, removed by `remove`. */
export function topologyDir(name: string): { path: string; remove: () => void } {
  const path = mkdtempSync(join(tmpdir(), `foresight-${name}-`));
  return { path, remove: () => rmSync(path, { recursive: true, force: true }) };
}

export function writeConfig(dir: string, name: string, lines: string[]): string {
  const file = join(dir, name);
  writeFileSync(file, `${lines.join('\n')}\n`);
  return file;
}

/** redis-cli, for what only it does (`--cluster create`); throws with its output when it fails. */
export function redisCli(args: string[]): string {
  const result = spawnSync('redis-cli', args, { encoding: 'utf8', timeout: 60_000 });
  if (result.status !== 0) throw new Error(`redis-cli ${args.join(' ')} failed: ${result.stdout}${result.stderr}`);
  return result.stdout;
}
