import { eventually } from '../support/eventually';
import { request } from '../support/http';
import { freePort } from '../support/ports';
import { type RunningProcess, startApi, startWorker } from '../support/processes';
import { type OrganizationWithToken, TestSuite } from '../support/suite';

interface Delivery {
  status: string;
  attempts: number;
  lastResponseCode: number | null;
  lastError: string | null;
}

/** Issue 15 (SSRF): special-purpose addresses from the IANA registries are refused, and errors of internal receivers say nothing about the network. */
describe('webhook address policy', () => {
  let suite: TestSuite;
  let api: RunningProcess;
  let worker: RunningProcess;
  let org: OrganizationWithToken;

  beforeAll(async () => {
    suite = await TestSuite.create('webhook_addresses');
    // One internal address is listed, as on-premises deployments do; 127.0.0.1 and the special-purpose ranges below are not.
    const env = { ...suite.env, WEBHOOK_RETRY_SCHEDULE: '1s', WEBHOOK_TIMEOUT_MS: '5000', WEBHOOK_ALLOWED_NETWORKS: '127.0.0.2/32' };
    api = await startApi(env);
    worker = await startWorker(env);
    org = await suite.createOrganization('Hooks');
  });

  afterAll(async () => {
    await worker?.stop();
    await api?.stop();
    await suite?.destroy();
  });

  const subscribe = (url: string) =>
    request<{ error: string; message: string; id: string }>(`${api.baseUrl}/v1/webhooks`, {
      token: org.token.secret,
      method: 'POST',
      body: { url, events: ['model.failed'] },
    });

  it.each([
    ['benchmarking 198.18.0.0/15', 'http://198.18.0.1/hook'],
    ['benchmarking, upper half', 'http://198.19.255.254/hook'],
    ['TEST-NET-1', 'http://192.0.2.10/hook'],
    ['TEST-NET-2', 'http://198.51.100.7/hook'],
    ['TEST-NET-3', 'http://203.0.113.9/hook'],
    ['IETF protocol assignments', 'http://192.0.0.170/hook'],
    ['reserved 240.0.0.0/4', 'http://240.1.2.3/hook'],
    ['IPv4-compatible loopback', 'http://[::127.0.0.1]/hook'],
    ['IPv4-mapped link-local', 'http://[::ffff:169.254.169.254]/hook'],
    ['NAT64 of loopback', 'http://[64:ff9b::7f00:1]/hook'],
    ['NAT64 of a private address', 'http://[64:ff9b::a00:1]/hook'],
    ['local-use NAT64', 'http://[64:ff9b:1::8.8.8.8]/hook'],
    ['6to4 of a private address', 'http://[2002:c0a8:101::1]/hook'],
    ['Teredo with a loopback client', 'http://[2001:0:4136:e378:8000:63bf:80ff:fffe]/hook'],
    ['IPv6 documentation', 'http://[2001:db8::1]/hook'],
    ['IPv6 discard-only', 'http://[100::1]/hook'],
    ['IPv6 outside global unicast', 'http://[4000::1]/hook'],
  ])('refuses %s (%s) with 400 and stores nothing', async (_range, url) => {
    const answer = await subscribe(url);
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({ error: 'invalid_request', message: expect.stringMatching(/^url: /) });
    expect(await suite.sql(`SELECT id FROM webhooks WHERE url = $1`, [url])).toEqual([]);
  });

  it('still accepts public addresses, and the embedded public IPv4 of NAT64', async () => {
    for (const url of ['http://93.184.216.34/hook', 'http://[2606:4700:4700::1111]/hook', 'http://[64:ff9b::5db8:d822]/hook']) {
      expect((await subscribe(url)).status).toBe(200);
    }
  });

  it('reports an allow-listed internal receiver that cannot be reached as "unreachable", without errno detail', async () => {
    const closedPort = await freePort();
    const webhook = await subscribe(`http://127.0.0.2:${closedPort}/hook`);
    expect(webhook.status).toBe(200);
    const model = await request<{ id: string }>(`${api.baseUrl}/v1/models`, {
      token: org.token.secret,
      method: 'POST',
      body: { name: 'never_trains', targetEvent: 'never_happens' },
    });
    expect((await request(`${api.baseUrl}/v1/models/retrain`, { token: org.token.secret, method: 'POST', body: { modelId: model.body.id } })).status).toBe(200);

    const delivery = await eventually('an attempt to the closed port', async () => {
      const log = await request<Delivery[]>(`${api.baseUrl}/v1/webhooks/${webhook.body.id}/deliveries`, { token: org.token.secret });
      return log.body.find((d) => d.attempts >= 1 && d.lastError !== null);
    });
    expect(delivery).toMatchObject({ lastResponseCode: null, lastError: 'unreachable' });
    expect(JSON.stringify(delivery)).not.toMatch(/ECONN|EHOST|ENET|timed out|127\.0\.0\.2|\d+ ms/);
  });
});
