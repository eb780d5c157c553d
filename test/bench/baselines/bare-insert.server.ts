// The in-run baseline for ingestion: a bare Fastify route doing one INSERT per request into the same Postgres.
import Fastify from 'fastify';
import { Pool } from 'pg';

const pool = new Pool({ connectionString: process.env.DATABASE_URL, max: 10 });
const app = Fastify({ logger: false });
app.get('/livez', async () => ({ status: 'ok' }));
app.post('/insert', async (request) => {
  await pool.query('INSERT INTO bench_baseline (payload) VALUES ($1)', [JSON.stringify(request.body)]);
  return { status: 'accepted' };
});
pool
  .query('CREATE TABLE IF NOT EXISTS bench_baseline (id bigserial PRIMARY KEY, payload jsonb NOT NULL)')
  .then(() => app.listen({ port: Number(process.env.PORT), host: '127.0.0.1' }))
  .catch((error: unknown) => {
    console.error(error);
    process.exit(1);
  });
