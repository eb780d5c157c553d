// `npm start`: build if needed, make sure Redis is there (start a local redis-server if possible), run the API.
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { connect } from 'node:net';
import { join } from 'node:path';
import { ensureBuilt } from './ensure-build.mjs';
import { runServiceProcess } from './service-process.mjs';

const root = ensureBuilt();
const require = createRequire(import.meta.url);
const { loadConfig } = require(join(root, 'dist/libs/platform/src/config/config.js'));

let config;
try {
  config = loadConfig();
} catch (error) {
  console.error(error.message);
  process.exit(1);
}

// A Redis Cluster or Sentinel set is the operator's to run: only a single local server is started here.
const redisUrl = config.redis.kind === 'server' ? new URL(config.redis.url.reveal()) : undefined;
const redisHost = redisUrl?.hostname || '127.0.0.1';
const redisPort = Number(redisUrl?.port || 6379);
const children = [];

function reachable(host, port) {
  return new Promise((resolve) => {
    const socket = connect({ host, port, timeout: 1000 });
    socket.once('connect', () => (socket.destroy(), resolve(true)));
    socket.once('error', () => resolve(false));
    socket.once('timeout', () => (socket.destroy(), resolve(false)));
  });
}

async function startLocalRedis() {
  const local = ['127.0.0.1', 'localhost', '::1'].includes(redisHost);
  const hasRedisServer = spawnSync('redis-server', ['--version'], { stdio: 'ignore' }).status === 0;
  if (!local || !hasRedisServer) {
    console.error(
      `Redis is not reachable at ${redisHost}:${redisPort}.\n` +
        'Start one (e.g. `redis-server --appendonly yes --maxmemory-policy noeviction`, or `docker run -p 6379:6379 redis:7`)\n' +
        'or point REDIS_URL at yours, then run `npm start` again.',
    );
    process.exit(1);
  }
  const dir = join(config.dataDir, 'redis');
  mkdirSync(dir, { recursive: true });
  console.error(`Redis not reachable at ${redisHost}:${redisPort}: starting a local redis-server (data in ${dir}).`);
  const redis = spawn(
    'redis-server',
    ['--bind', '127.0.0.1', '--port', String(redisPort), '--dir', dir, '--appendonly', 'yes', '--maxmemory-policy', 'noeviction'],
    { stdio: 'ignore' },
  );
  children.push(redis);
  for (let i = 0; i < 50 && !(await reachable('127.0.0.1', redisPort)); i++) await new Promise((r) => setTimeout(r, 100));
}

if (redisUrl && !(await reachable(redisHost, redisPort))) await startLocalRedis();

runServiceProcess(root, 'dist/apps/api/src/main.js', () => {
  for (const child of children) child.kill('SIGTERM');
});
