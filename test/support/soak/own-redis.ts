import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { eventually } from '../eventually';
import { freePort } from '../ports';

/**
 * A redis-server of its own on a free port, configured as the README asks (AOF on, noeviction), in a
 * temporary directory: it can be restarted keeping its data (AOF replay) or losing all of it.
 */
export class OwnRedis {
  private child!: ChildProcess;

  private constructor(
    readonly port: number,
    private readonly dir: string,
  ) {}

  static async start(): Promise<OwnRedis> {
    const redis = new OwnRedis(await freePort(), mkdtempSync(join(tmpdir(), 'foresight-soak-redis-')));
    await redis.launch();
    return redis;
  }

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  /** SIGTERM (Redis flushes its AOF and exits), then a start that replays it. */
  async restartKeepingData(): Promise<void> {
    await this.signal('SIGTERM');
    await this.launch();
  }

  /** SIGKILL, its files deleted, a start from nothing: every queued job and cached value is gone. */
  async restartLosingData(): Promise<void> {
    await this.signal('SIGKILL');
    rmSync(this.dir, { recursive: true, force: true });
    mkdirSync(this.dir);
    await this.launch();
  }

  get pid(): number {
    return this.child.pid as number;
  }

  client(): Redis {
    return new Redis(this.url, { maxRetriesPerRequest: 3 });
  }

  async stop(): Promise<void> {
    await this.signal('SIGKILL');
    rmSync(this.dir, { recursive: true, force: true });
  }

  private async launch(): Promise<void> {
    const args = ['--port', String(this.port), '--bind', '127.0.0.1', '--dir', this.dir, '--appendonly', 'yes', '--appendfsync', 'everysec', '--save', '', '--maxmemory-policy', 'noeviction'];
    this.child = spawn('redis-server', args, { stdio: 'ignore' });
    await eventually('redis-server to answer', async () => {
      const probe = new Redis(this.url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
      probe.on('error', () => undefined); // not listening yet: connect() rejects, the next poll tries again
      try {
        await probe.connect();
        // Loading the AOF answers LOADING errors until it is done.
        return (await probe.ping()) === 'PONG' ? true : undefined;
      } catch {
        return undefined;
      } finally {
        probe.disconnect();
      }
    }, 60_000);
  }

  private async signal(name: NodeJS.Signals): Promise<void> {
    const child = this.child;
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill(name);
    await exited;
  }
}
