import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadConfig } from '@foresight/platform';
import { AddressPolicy } from '../address-policy';
import { WebhookSenderService } from './webhook-sender.service';

const external = { DATABASE_URL: 'postgres://u:p@db:5432/foresight', TOKEN_PEPPER: 'p'.repeat(32), ENCRYPTION_KEY: 'a'.repeat(64) };
const LOOPBACK = [
  { network: '127.0.0.0', prefix: 8, type: 'ipv4' as const },
  { network: '::1', prefix: 128, type: 'ipv6' as const },
];

/** Loopback receivers: `/ok` answers 204, `/moved` redirects, `/hang` never answers. */
describe('WebhookSenderService against a real local receiver', () => {
  let server: Server;
  let port: number;
  const bodies: string[] = [];
  // A short timeout only where the test waits for it: a loaded 2-core machine can take longer to answer /ok.
  const sender = (allowLoopback: boolean, timeoutMs = 10_000) =>
    new WebhookSenderService(loadConfig({ ...external, WEBHOOK_TIMEOUT_MS: String(timeoutMs) }), new AddressPolicy(allowLoopback ? LOOPBACK : []));

  beforeAll(async () => {
    server = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString()));
      req.on('end', () => {
        bodies.push(body);
        if (req.url === '/ok') res.writeHead(204).end();
        if (req.url === '/moved') res.writeHead(302, { location: 'http://169.254.169.254/' }).end();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it('resolves names through the policy: refused while loopback is not allowed, delivered once it is', async () => {
    const url = new URL(`http://localhost:${port}/ok`);
    const refused = await sender(false).send(url, '{"a":1}', {});
    expect(refused).toMatchObject({ statusCode: null, error: 'refused: localhost resolves to an address outside the allowed networks' });
    const before = bodies.length;
    expect(await sender(true).send(url, '{"a":1}', { 'content-type': 'application/json' })).toMatchObject({ statusCode: 204, error: null });
    expect(bodies.slice(before)).toEqual(['{"a":1}']);
  });

  it('refuses IP-literal targets without connecting', async () => {
    const before = bodies.length;
    expect(await sender(false).send(new URL(`http://127.0.0.1:${port}/ok`), '{}', {})).toMatchObject({ statusCode: null, error: expect.stringMatching(/^refused/) });
    expect(await sender(true).send(new URL('http://169.254.169.254/latest'), '{}', {})).toMatchObject({ error: expect.stringMatching(/link-local, metadata/) });
    expect(bodies.length).toBe(before);
  });

  it('does not follow redirects', async () => {
    expect(await sender(true).send(new URL(`http://127.0.0.1:${port}/moved`), '{}', {})).toMatchObject({ statusCode: 302, error: null });
  });

  it('gives up on a receiver that does not answer within the timeout, and says only "unreachable" for an internal one', async () => {
    expect(await sender(true, 300).send(new URL(`http://127.0.0.1:${port}/hang`), '{}', {})).toMatchObject({ statusCode: null, error: 'unreachable' });
  });

  it('reports a closed port of an allow-listed internal receiver as "unreachable", like a silent one (no port scanner)', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const closedPort = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    for (const host of ['127.0.0.1', 'localhost']) {
      const result = await sender(true).send(new URL(`http://${host}:${closedPort}/ok`), '{}', {});
      expect(result).toEqual({ statusCode: null, error: 'unreachable', detail: expect.stringContaining('ECONNREFUSED'), latencyMs: expect.any(Number) });
    }
  });
});
