import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { parse } from 'yaml';
import { loadConfig } from '../../libs/platform/src/config/config';
import { environmentSchema, REQUIRED_WITH_EXTERNAL_DATABASE } from '../../libs/platform/src/config/config.schema';
import nodeFlags from '../../scripts/node-flags.json';
import { REPOSITORY } from './chart';
import { entryPoint } from './entry-points';

/**
 * docker/Dockerfile, its .dockerignore and docker/compose.yaml, read statically (no Docker engine
 * here): the image builds what `npm run build` builds, ships production dependencies only, runs
 * unprivileged without baked-in configuration, and the compose file wires the same processes.
 */

const DOCKER_DIR = join(REPOSITORY, 'docker');
const packageJson = JSON.parse(readFileSync(join(REPOSITORY, 'package.json'), 'utf8')) as {
  scripts: Record<string, string>;
  engines: Record<string, string>;
  devDependencies: Record<string, string>;
  allowScripts?: Record<string, boolean>;
};

interface Instruction {
  readonly keyword: string;
  readonly args: string;
}

interface Stage {
  readonly name: string;
  readonly base: string;
  readonly instructions: Instruction[];
}

/** The Dockerfile's stages, continuation lines joined, comments dropped. */
function dockerfileStages(): Stage[] {
  const lines = readFileSync(join(DOCKER_DIR, 'Dockerfile'), 'utf8')
    .replace(/\\\n/g, ' ')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line && !line.startsWith('#'));
  const stages: Stage[] = [];
  for (const line of lines) {
    const [, keyword, args] = /^(\w+)\s+(.*)$/.exec(line) ?? [];
    const from = keyword === 'FROM' ? /^(\S+)(?:\s+AS\s+(\S+))?$/i.exec(args) : null;
    if (from) stages.push({ base: from[1], name: from[2] ?? String(stages.length), instructions: [] });
    else if (stages.length > 0) stages[stages.length - 1].instructions.push({ keyword: keyword.toUpperCase(), args });
  }
  return stages;
}

const stages = dockerfileStages();
const runtime = stages[stages.length - 1];
const stage = (name: string) => {
  const found = stages.find((s) => s.name === name);
  if (!found) throw new Error(`no stage ${name}`);
  return found;
};
/** A stage's instructions after those of the stages it is built FROM. */
const lineage = (s: Stage): Instruction[] => [...(stages.some((other) => other.name === s.base) ? lineage(stage(s.base)) : []), ...s.instructions];
const jsonArgs = (instruction: Instruction | undefined) => JSON.parse(instruction?.args ?? 'null') as unknown;
/** Sources of the COPY instructions that read the build context (not --from another stage). */
const contextCopies = (instructions: Instruction[]) =>
  instructions
    .filter((i) => i.keyword === 'COPY' && !i.args.startsWith('--from'))
    .flatMap((i) => i.args.split(/\s+/).slice(0, -1));
const stageRunning = (command: string) => {
  const found = stages.find((s) => s.instructions.some((i) => i.keyword === 'RUN' && i.args.endsWith(command)));
  if (!found) throw new Error(`no stage runs ${command}`);
  return found;
};

describe('docker/Dockerfile', () => {
  it('builds in stages and leaves health checks to Kubernetes probes', () => {
    expect(stages.map((s) => s.name)).toEqual(['manifests', 'build', 'production-dependencies', 'runtime']);
    expect(stages.flatMap((s) => s.instructions).filter((i) => i.keyword === 'HEALTHCHECK')).toEqual([]);
  });

  it('compiles with `npm run build` from every file the build script reads', () => {
    const build = stageRunning('npm run build');
    expect(packageJson.scripts.build).toBe('tsc -p tsconfig.build.json && tsc-alias -p tsconfig.build.json');
    const { config } = ts.readConfigFile(join(REPOSITORY, 'tsconfig.build.json'), (path) => ts.sys.readFile(path)) as {
      config: { extends: string; include: string[] };
    };
    const needed = ['tsconfig.build.json', config.extends.replace(/^\.\//, ''), ...config.include.map((glob) => glob.split('/')[0])];
    expect(contextCopies(lineage(build))).toEqual(expect.arrayContaining([...new Set(needed)]));
  });

  it('installs with the repository .npmrc and without onnxruntime GPU downloads', () => {
    expect(readFileSync(join(REPOSITORY, '.npmrc'), 'utf8')).toMatch(/^onnxruntime-node-install=skip$/m);
    for (const install of [stageRunning('npm ci'), stageRunning('npm ci --omit=dev')]) {
      const before = lineage(install);
      const ci = before.findIndex((i) => i.keyword === 'RUN' && /npm ci/.test(i.args));
      expect(contextCopies(before.slice(0, ci))).toEqual(expect.arrayContaining(['package.json', 'package-lock.json', '.npmrc']));
      expect(before.slice(0, ci)).toContainEqual({ keyword: 'ENV', args: 'ONNXRUNTIME_NODE_INSTALL=skip' });
    }
  });

  it('ships the compiled dist/ and production dependencies only', () => {
    expect(stages.some((s) => s.name === runtime.base)).toBe(false);
    expect(runtime.instructions.filter((i) => i.keyword === 'COPY').map((i) => i.args)).toEqual([
      `--from=${stageRunning('npm ci --omit=dev').name} /app/node_modules ./node_modules`,
      `--from=${stageRunning('npm run build').name} /app/dist ./dist`,
    ]);
    expect(runtime.instructions.filter((i) => i.keyword === 'RUN')).toEqual([]);
  });

  it('runs on the Node.js line the tests run on, which package.json pins and requires', () => {
    const pinned = packageJson.devDependencies.node;
    expect(pinned).toMatch(/^\d+\.\d+\.\d+$/);
    const major = pinned.split('.')[0];
    // The pinned binary reaches node_modules/.bin only through the node package's approved preinstall.
    expect(packageJson.allowScripts?.node).toBe(true);
    expect(packageJson.engines.node).toBe(`^${pinned}`);
    expect(packageJson.devDependencies['@types/node']).toMatch(new RegExp(`^\\^${major}\\.`));
    const image = /^ARG NODE_IMAGE=(\S+)$/m.exec(readFileSync(join(DOCKER_DIR, 'Dockerfile'), 'utf8'))?.[1];
    expect(image).toBe(`node:${major}-bookworm-slim`);
    expect(stages.map((s) => s.base).filter((base) => !stages.some((other) => other.name === base))).toEqual(['${NODE_IMAGE}', '${NODE_IMAGE}']);
  });

  it('runs as a numeric non-root user, which Kubernetes runAsNonRoot can verify', () => {
    const users = runtime.instructions.filter((i) => i.keyword === 'USER').map((i) => i.args);
    expect(users).toHaveLength(1);
    expect(users[0]).toMatch(/^[1-9]\d*(:\d+)?$/);
  });

  it('bakes no configuration or secret into the image', () => {
    // The runtime stage's only environment is how node runs (scripts/node-flags.json), none of Foresight's settings.
    expect(runtime.instructions.filter((i) => i.keyword === 'ARG')).toEqual([]);
    expect(runtime.instructions.filter((i) => i.keyword === 'ENV').map((i) => i.args)).toEqual(Object.entries(nodeFlags.env).map(([name, value]) => `${name}=${value}`));
    const appVariables = Object.keys(environmentSchema.shape);
    const settings = stages.flatMap((s) => s.instructions).filter((i) => i.keyword === 'ENV' || i.keyword === 'ARG');
    expect(settings.filter((i) => appVariables.includes(i.args.split(/[=\s]/)[0]))).toEqual([]);
  });

  it('starts the API by default, and the worker and CLI by argument, with the entry points `npm run build` produces', () => {
    for (const app of ['api', 'worker', 'cli'] as const) expect(existsSync(join(REPOSITORY, 'apps', app, 'src', 'main.ts'))).toBe(true);
    // node with the flags (and, above, the environment) npm start and the tests run the service with (scripts/node-flags.json).
    expect(jsonArgs(runtime.instructions.find((i) => i.keyword === 'ENTRYPOINT'))).toEqual(['node', ...nodeFlags.flags]);
    expect(jsonArgs(runtime.instructions.find((i) => i.keyword === 'CMD'))).toEqual([entryPoint('api')]);
    // The image runs what the package scripts run (the chart and compose pass these as arguments): npm run start:worker's launcher runs the same entry point with the same flags.
    expect(packageJson.scripts['start:worker']).toBe('node scripts/start-worker.mjs');
    expect(readFileSync(join(REPOSITORY, 'scripts', 'start-worker.mjs'), 'utf8')).toContain(`runServiceProcess(ensureBuilt(), '${entryPoint('worker')}')`);
  });
});

/** Docker's .dockerignore matching: the last matching pattern wins, and a path is excluded with its parent. */
function ignored(patterns: string[], path: string): boolean {
  const toRegExp = (glob: string) =>
    // eslint-disable-next-line no-control-regex -- NUL stands in for `**` while `*` is replaced: no path contains it
    new RegExp(`^${glob.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*\*\/?/g, '\u0000').replace(/\*/g, '[^/]*').replace(/\?/g, '[^/]').replace(/\u0000/g, '.*')}$`);
  const parts = path.split('/');
  const candidates = parts.map((_, i) => parts.slice(0, i + 1).join('/'));
  let excluded = false;
  for (const raw of patterns) {
    const negated = raw.startsWith('!');
    const pattern = toRegExp((negated ? raw.slice(1) : raw).replace(/^\/|\/$/g, ''));
    if (candidates.some((candidate) => pattern.test(candidate))) excluded = !negated;
  }
  return excluded;
}

describe('docker/Dockerfile.dockerignore', () => {
  const patterns = readFileSync(join(DOCKER_DIR, 'Dockerfile.dockerignore'), 'utf8')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line && !line.startsWith('#'));

  it('sends every file the Dockerfile copies from the build context', () => {
    const copied = contextCopies(stages.flatMap((s) => s.instructions));
    expect(copied.length).toBeGreaterThan(0);
    const samples = copied.map((source) => (statSync(join(REPOSITORY, source)).isDirectory() ? `${source}/any/file.ts` : source));
    expect(samples.filter((path) => ignored(patterns, path))).toEqual([]);
  });

  it('keeps local builds, dependencies, embedded data and secrets out of the build context', () => {
    const local = ['node_modules/zod/package.json', 'dist/apps/api/src/main.js', '.data/secrets/token-pepper', 'docker/.env', '.env', '.git/config'];
    expect(local.filter((path) => !ignored(patterns, path))).toEqual([]);
  });
});

describe('docker/compose.yaml', () => {
  interface Service {
    image?: string;
    build?: { context: string; dockerfile: string };
    command?: string[];
    entrypoint?: string[];
    environment?: Record<string, string>;
    volumes?: string[];
    ports?: string[];
    depends_on?: Record<string, { condition: string }>;
    restart?: string;
    read_only?: boolean;
    cap_drop?: string[];
    tmpfs?: string[];
    security_opt?: string[];
    stop_grace_period?: string;
  }
  const source = readFileSync(join(DOCKER_DIR, 'compose.yaml'), 'utf8');
  const compose = parse(source, { merge: true }) as { services: Record<string, Service>; volumes: Record<string, unknown> };
  const { postgres, redis, migrate, api, worker, cli } = compose.services;
  const processes = { migrate, api, worker, cli };
  /** The operator's docker/.env, as the header of compose.yaml has them generate it. */
  const dotEnv: Record<string, string> = { POSTGRES_PASSWORD: 'f'.repeat(32), TOKEN_PEPPER: '9'.repeat(64), ENCRYPTION_KEY: '8'.repeat(64) };
  const interpolate = (value: string) =>
    value.replace(/\$\{(\w+)(?::([?-])([^}]*))?\}/g, (_, name: string, operator?: string, fallback?: string) => {
      if (name in dotEnv) return dotEnv[name];
      if (operator === '-') return fallback ?? '';
      throw new Error(`compose needs ${name}`);
    });

  it('keeps PostgreSQL data in a volume and runs Redis with AOF and noeviction, persisted', () => {
    expect(postgres.volumes).toEqual(['postgres-data:/var/lib/postgresql/data']);
    expect(redis.command?.join(' ')).toMatch(/--appendonly yes/);
    expect(redis.command?.join(' ')).toMatch(/--maxmemory-policy noeviction/);
    expect(redis.volumes).toEqual(['redis-data:/data']);
    expect(Object.keys(compose.volumes).sort()).toEqual(['postgres-data', 'redis-data']);
  });

  it('runs the migration once, after PostgreSQL and Redis are healthy and before the API and worker start', () => {
    expect([...(migrate.entrypoint ?? ['node']), ...(migrate.command ?? [])]).toEqual(['node', entryPoint('cli'), 'migrate']);
    expect(migrate.restart).toBe('no');
    expect(migrate.depends_on).toEqual({ postgres: { condition: 'service_healthy' }, redis: { condition: 'service_healthy' } });
    for (const service of [api, worker, cli]) expect(service.depends_on).toEqual({ migrate: { condition: 'service_completed_successfully' } });
  });

  it('runs every process from the one image docker/Dockerfile builds, with its entry point', () => {
    for (const service of Object.values(processes)) {
      expect(service).toMatchObject({ image: api.image, build: { context: '..', dockerfile: 'docker/Dockerfile' } });
    }
    expect(api.command).toEqual([entryPoint('api')]);
    expect(worker.command).toEqual([entryPoint('worker')]);
    expect(cli.entrypoint).toEqual(['node', entryPoint('cli')]);
  });

  it('writes no secret: each comes from docker/.env and compose stops when it is missing', () => {
    const secrets = { TOKEN_PEPPER: api.environment?.TOKEN_PEPPER, ENCRYPTION_KEY: api.environment?.ENCRYPTION_KEY, POSTGRES_PASSWORD: postgres.environment?.POSTGRES_PASSWORD };
    for (const [name, value] of Object.entries(secrets)) expect(value).toMatch(new RegExp(`^\\$\\{${name}:\\?[^}]+\\}$`));
    expect(api.environment?.DATABASE_URL).toContain('${POSTGRES_PASSWORD:?');
    expect(readFileSync(join(DOCKER_DIR, '.gitignore'), 'utf8')).toMatch(/^\.env$/m);
  });

  it.each(['migrate', 'api', 'worker', 'cli'] as const)('gives %s an environment the app accepts: external database, separate worker', (name) => {
    const environment = Object.fromEntries(Object.entries(processes[name].environment ?? {}).map(([key, value]) => [key, interpolate(String(value))]));
    const known = Object.keys(environmentSchema.shape);
    expect(Object.keys(environment).filter((key) => !known.includes(key))).toEqual([]);
    expect(Object.keys(environment)).toEqual(expect.arrayContaining([...REQUIRED_WITH_EXTERNAL_DATABASE, 'DATABASE_URL', 'REDIS_URL', 'WORKER_MODE']));
    const parsed = environmentSchema.safeParse(environment);
    expect(parsed.success ? [] : parsed.error.issues).toEqual([]);
    expect(loadConfig(environment)).toMatchObject({ embedded: false, workerMode: 'off' });
    expect(new URL(environment.DATABASE_URL).hostname).toBe('postgres');
    expect(new URL(environment.REDIS_URL).hostname).toBe('redis');
  });

  it('publishes the API port on the loopback interface only', () => {
    expect(api.ports).toEqual([`127.0.0.1:${api.environment?.PORT}:${api.environment?.PORT}`]);
  });

  it('hardens the app containers as the chart does, with time to finish work on stop', () => {
    for (const service of Object.values(processes)) {
      expect(service).toMatchObject({ read_only: true, cap_drop: ['ALL'], tmpfs: ['/tmp'], security_opt: ['no-new-privileges:true'] });
      expect(Number(/^(\d+)s$/.exec(service.stop_grace_period ?? '')?.[1])).toBeGreaterThan(30);
    }
  });
});
