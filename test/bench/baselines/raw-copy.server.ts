// The in-run limit for ingestion: PostgreSQL's own bulk load of the rows the API stores, from a separate process.
//
// POST /copy {seconds} runs COPY_STREAMS concurrent streams for that long, each committing one
// transaction per CHUNK_ROWS rows (synchronous_commit on, as for the API: durable before the next chunk),
// and answers how many rows were committed and each chunk's commit latency.
//
// The rows are the ones the API stores for the benchmark's requests: same organization, same
// `events` table with all its indexes and partitions, same columns, user ids as sent (the bench
// organization does not pseudonymize), properties as ciphertext text sealed by the same Encryptor
// under the suite's key, a key id, a fresh messageId per row. Each chunk also writes the messageIds'
// dedupe keys to `event_message_keys` (messageKey, computed here as the API computes it): the API
// must store them to refuse a duplicate, so rows without them would be a limit no durable,
// deduplicating writer can reach. What COPY leaves out, by its nature,
// is the deduplicating itself and the user_activity revisions: that is the API's overhead over the limit.
import { randomUUID } from 'node:crypto';
import Fastify from 'fastify';
import { Pool, type PoolClient } from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { messageKey } from '@foresight/events';
import { Encryptor } from '@foresight/platform';

const CHUNK_ROWS = 500;
const COPY_STREAMS = Number(process.env.COPY_STREAMS ?? 4);
const organizationId = required('ORGANIZATION_ID');
const encryptor = new Encryptor([Buffer.from(required('ENCRYPTION_KEY'), 'hex')]);
const pool = new Pool({ connectionString: required('DATABASE_URL'), max: COPY_STREAMS });

const EVENT_COLUMNS =
  'organization_id, message_id, event, user_id, anonymous_id, session_id, occurred_at, received_at, ' +
  'screen, scroll_depth, dwell_ms, hesitation_ms, properties, context, encryption_key_id';

/**
 * The bench's events (test/bench/events.bench.ts `oneEvent`) as stored rows, in COPY text format
 * (tab-separated, \N for NULL) up to and excluding the messageId, which is fresh per row. The
 * ciphertexts are sealed once per row template here; sealing is the API's work, not the database's.
 */
const templates = Array.from({ length: CHUNK_ROWS }, (_, i) => {
  const scroll = i % 4 === 0;
  const properties = scroll ? { depth: 0.6, dwellMs: 900 } : { button: 'buy', plan: 'pro' };
  const sealed = encryptor.encrypt(JSON.stringify(properties), `events.properties:${organizationId}:${randomUUID()}`);
  return {
    event: scroll ? 'scroll' : 'click',
    userId: `bench-user-${i % 1000}`,
    signals: scroll ? '0.6\t900' : '\\N\t\\N',
    sealed,
  };
});

function chunk(): { events: string; messageKeys: string } {
  const at = new Date().toISOString();
  let events = '';
  let messageKeys = '';
  for (const row of templates) {
    const messageId = randomUUID();
    events += `${organizationId}\t${messageId}\t${row.event}\t${row.userId}\t\\N\t\\N\t${at}\t${at}\t\\N\t${row.signals}\t\\N\t${row.sealed}\t\\N\t${encryptor.currentKeyId}\n`;
    messageKeys += `${organizationId}\t\\\\x${messageKey(organizationId, messageId)}\n`;
  }
  return { events, messageKeys };
}

function copy(client: PoolClient, sql: string, text: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const stream = client.query(copyFrom(sql));
    stream.on('finish', resolve);
    stream.on('error', reject);
    stream.end(text);
  });
}

async function stream(until: number, latencies: number[]): Promise<number> {
  const client = await pool.connect();
  let rows = 0;
  try {
    while (performance.now() < until) {
      const { events, messageKeys } = chunk();
      const started = performance.now();
      await client.query('BEGIN');
      await copy(client, `COPY events (${EVENT_COLUMNS}) FROM STDIN`, events);
      await copy(client, 'COPY event_message_keys (organization_id, key) FROM STDIN', messageKeys);
      await client.query('COMMIT');
      latencies.push(performance.now() - started);
      rows += CHUNK_ROWS;
    }
  } finally {
    client.release();
  }
  return rows;
}

const app = Fastify({ logger: false });
app.get('/livez', async () => ({ status: 'ok' }));
app.post<{ Body: { seconds: number } }>('/copy', async (request) => {
  const started = performance.now();
  const latencies: number[] = [];
  const counts = await Promise.all(Array.from({ length: COPY_STREAMS }, () => stream(started + request.body.seconds * 1000, latencies)));
  const seconds = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * q))];
  return { rows: counts.reduce((a, b) => a + b, 0), chunks: latencies.length, seconds, p50Ms: at(0.5), p99Ms: at(0.99) };
});
app.listen({ port: Number(process.env.PORT), host: '127.0.0.1' }).catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});

function required(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is required`);
  return value;
}
