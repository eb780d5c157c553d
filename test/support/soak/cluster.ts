import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { freePort } from '../ports';
import { cliJson, type RunningProcess, SERVICE_RUNTIME, startApi, startWorker } from '../processes';
import type { OrganizationWithToken } from '../suite';
import { OwnPostgres } from './own-postgres';
import { OwnRedis } from './own-redis';

const DATABASE = 'foresight';
/** A supervisor's pause before starting a process again (Kubernetes' first back-off is 10 s; shorter here). */
const RESTART_DELAY_MS = 1_000;

/**
 * One API or worker process under a supervisor: started again whenever it exits, as Kubernetes or
 * systemd would. An API keeps its port across restarts (the load balancer's target). Exits nobody
 * asked for are counted: the service is meant to ride out every fault without dying.
 */
export class Supervised {
  current: RunningProcess | undefined;
  /** Every pid this slot ran, for the RSS samples. */
  readonly incarnations: Array<{ pid: number; startedAt: number }> = [];
  unplannedExits: string[] = [];
  /** The output of the incarnations that ended (the current one's is read from it). */
  private readonly pastOutputs: Array<{ pid: number; output: string }> = [];
  private stopping = false;
  private killing = false;

  constructor(
    readonly name: string,
    private readonly launch: () => Promise<RunningProcess>,
  ) {}

  async start(): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      try {
        const running = await this.launch();
        this.current = running;
        this.incarnations.push({ pid: running.child.pid as number, startedAt: Date.now() });
        running.child.once('exit', (code, signal) => void this.exited(running, code, signal));
        return;
      } catch (error) {
        // A start during a fault (PostgreSQL restarting) fails like a crash-looping pod: try again.
        if (this.stopping || attempt >= 60) throw error;
        console.log(`${this.name} did not start (attempt ${attempt}): ${String(error).slice(0, 300)}`);
        await new Promise((resolve) => setTimeout(resolve, RESTART_DELAY_MS * Math.min(attempt, 5)));
      }
    }
  }

  /** kill -9, then started again by the supervisor; resolves once the new process is up. */
  async crash(): Promise<void> {
    this.killing = true;
    if (this.current) this.keepOutput(this.current);
    await this.current?.kill();
    this.killing = false;
    await this.start();
  }

  async stop(): Promise<void> {
    this.stopping = true;
    await this.current?.stop();
  }

  output(): string {
    return this.current?.output() ?? '';
  }

  /** What each of this slot's processes wrote (pino's JSON lines), by pid, the current one's last. */
  outputs(): Array<{ pid: number; output: string }> {
    const current = this.current ? [{ pid: this.current.child.pid as number, output: this.current.output() }] : [];
    return [...this.pastOutputs, ...current];
  }

  /** Every error-level log line (pino level 50 and above) this slot's processes wrote. */
  loggedErrors(): string[] {
    return this.outputs().flatMap(({ output }) => errorLines(output));
  }

  private keepOutput(running: RunningProcess): void {
    this.pastOutputs.push({ pid: running.child.pid as number, output: running.output() });
  }

  private async exited(running: RunningProcess, code: number | null, signal: NodeJS.Signals | null): Promise<void> {
    if (this.stopping || this.killing || running !== this.current) return;
    this.keepOutput(running);
    this.unplannedExits.push(`${this.name} exited (${code ?? signal}) at ${new Date().toISOString()}: ${running.output().slice(-1500)}`);
    await new Promise((resolve) => setTimeout(resolve, RESTART_DELAY_MS));
    if (!this.stopping) await this.start();
  }
}

function errorLines(output: string): string[] {
  return output.split('\n').filter((line) => /"level":(5|6)\d/.test(line));
}

/**
 * Foresight as deployed, on servers of its own: a PostgreSQL and a Redis that faults may restart,
 * crash or pause, 2 API processes and 2 workers under a supervisor, one organization with its token.
 */
export class SoakCluster {
  readonly apis: Supervised[] = [];
  readonly workers: Supervised[] = [];
  org!: OrganizationWithToken;

  private constructor(
    readonly postgres: OwnPostgres,
    readonly redis: OwnRedis,
    readonly env: Record<string, string>,
  ) {}

  /** `nodeFlags`: node flags every API and worker runs with beside the service's own (node-flags.json), for diagnostics. */
  static async start(options: { apis: number; workers: number; env?: Record<string, string>; nodeFlags?: readonly string[] }): Promise<SoakCluster> {
    const postgres = await OwnPostgres.start();
    const redis = await OwnRedis.start().catch(async (error: unknown) => {
      await postgres.stop();
      throw error;
    });
    await postgres.query(`CREATE DATABASE ${DATABASE}`);
    const cluster = new SoakCluster(postgres, redis, {
      DATABASE_URL: postgres.url(DATABASE),
      REDIS_URL: redis.url,
      REDIS_PREFIX: 'soak:',
      TOKEN_PEPPER: randomBytes(32).toString('hex'),
      ENCRYPTION_KEY: randomBytes(32).toString('hex'),
      ...options.env,
    });
    try {
      await cliJson(cluster.env, ['migrate']);
      cluster.org = await cliJson<OrganizationWithToken>(cluster.env, ['org', 'create', '--name', 'Soak', '--rate-limit', '1000000', '--burst', '2000000']);
      const runtime = { ...SERVICE_RUNTIME, flags: [...SERVICE_RUNTIME.flags, ...(options.nodeFlags ?? [])] };
      for (let i = 0; i < options.apis; i++) {
        const port = await freePort();
        cluster.apis.push(new Supervised(`api-${i + 1}`, () => startApi(cluster.env, port, runtime)));
      }
      for (let i = 0; i < options.workers; i++) cluster.workers.push(new Supervised(`worker-${i + 1}`, () => startWorker(cluster.env, runtime)));
      await Promise.all([...cluster.apis, ...cluster.workers].map((p) => p.start()));
    } catch (error) {
      await cluster.stop();
      throw error;
    }
    return cluster;
  }

  get token(): string {
    return this.org.token.secret;
  }

  get organizationId(): string {
    return this.org.organization.id;
  }

  /** The APIs' base URLs (stable across restarts): the load spreads over them as a load balancer would. */
  get apiUrls(): string[] {
    return this.apis.map((api) => api.current?.baseUrl ?? '');
  }

  get processes(): Supervised[] {
    return [...this.apis, ...this.workers];
  }

  /** Direct SQL on Foresight's database, for the checks. */
  async sql<T = Record<string, unknown>>(text: string, params: unknown[] = []): Promise<T[]> {
    const pg = new Client({ connectionString: this.env.DATABASE_URL });
    await pg.connect();
    try {
      return (await pg.query(text, params)).rows as T[];
    } finally {
      await pg.end();
    }
  }

  async stop(): Promise<void> {
    await Promise.allSettled(this.processes.map((p) => p.stop()));
    await Promise.allSettled([this.postgres.stop(), this.redis.stop()]);
  }
}
