// The in-run baseline for serving: a bare Fastify route doing one primary-key lookup in the same Postgres
// (a table of 10,000 rows keyed like the demo users, so both sides see the same ids).
import Fastify from 'fastify';
import { Pool } from 'pg';

const ROWS = 10_000;
const pool = new Pool({ connectionString: process.env.DATABASE_URL, max: 10 });
const app = Fastify({ logger: false });
app.get('/livez', async () => ({ status: 'ok' }));
app.get<{ Querystring: { id: string } }>('/lookup', async (request) => {
  const { rows } = await pool.query('SELECT id, name FROM bench_lookup WHERE id = $1', [request.query.id]);
  return rows[0];
});
pool
  .query(`CREATE TABLE IF NOT EXISTS bench_lookup (id text PRIMARY KEY, name text NOT NULL);
          INSERT INTO bench_lookup SELECT 'demo-' || lpad(i::text, 6, '0'), 'user ' || i FROM generate_series(0, ${ROWS - 1}) i ON CONFLICT DO NOTHING`)
  .then(() => app.listen({ port: Number(process.env.PORT), host: '127.0.0.1' }))
  .catch((error: unknown) => {
    console.error(error);
    process.exit(1);
  });
