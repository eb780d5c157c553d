// The in-run baseline: a bare Fastify route with no auth, no rate limit, no Nest. Same JSON as /v1/health.
import Fastify from 'fastify';

const app = Fastify({ logger: false });
app.get('/livez', async () => ({ status: 'ok' }));
app.get('/bare', async () => ({ status: 'ok', version: '0.0.0' }));
app.listen({ port: Number(process.env.PORT), host: '127.0.0.1' }).catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
