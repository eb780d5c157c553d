import type { Clock } from './clock';
import { Dispatcher } from './dispatcher';
import { MemoryEventQueue } from './event-queue';
import type { SdkEvent } from './payload';
import { type HttpReply, Transport } from './transport';

const event = (n: number): SdkEvent => ({ event: 'click', messageId: `m${n}`, timestamp: new Date(n).toISOString(), context: {} });
const reply = (status: number, headers: Record<string, string> = {}, body: unknown = {}): HttpReply => ({
  status,
  headers: { get: (name) => headers[name] ?? null },
  json: async () => body,
});

/** A network that answers from a script, one reply (or a thrown error: a cut connection) per request. */
function scriptedNetwork(script: Array<HttpReply | Error>) {
  const bodies: SdkEvent[][] = [];
  const post = async (_url: string, body: string) => {
    bodies.push(JSON.parse(body) as SdkEvent[]);
    const next = script.shift() ?? reply(200);
    if (next instanceof Error) throw next;
    return next;
  };
  return { bodies, transport: new Transport('http://api.test/v1/events', 'pat_dev_x', post) };
}

describe('Dispatcher', () => {
  let now: number;
  const clock: Clock = { now: () => now, random: () => 0 };
  const warnings: string[] = [];
  beforeEach(() => {
    now = 1_000_000;
    warnings.length = 0;
  });

  it('sends batch after batch until the queue is empty', async () => {
    const queue = new MemoryEventQueue({ batchEvents: 2 });
    [1, 2, 3, 4, 5].forEach((n) => queue.add(event(n)));
    const network = scriptedNetwork([]);
    await new Dispatcher(queue, network.transport, clock, (m) => warnings.push(m)).flush();
    expect(network.bodies.map((b) => b.map((e) => e.messageId))).toEqual([['m1', 'm2'], ['m3', 'm4'], ['m5']]);
    expect(queue.size).toBe(0);
  });

  it("waits the server's Retry-After after a 429 and resends the same events, same messageIds", async () => {
    const queue = new MemoryEventQueue();
    queue.add(event(1));
    const network = scriptedNetwork([reply(429, { 'retry-after': '7' })]);
    const dispatcher = new Dispatcher(queue, network.transport, clock, (m) => warnings.push(m));
    await dispatcher.flush();
    expect(queue.size).toBe(1);
    expect(dispatcher.retryInMs()).toBe(7_000);
    await dispatcher.flush();
    expect(network.bodies).toHaveLength(1); // still backing off
    now += 7_000;
    await dispatcher.flush();
    expect(network.bodies.map((b) => b[0].messageId)).toEqual(['m1', 'm1']);
    expect(queue.size).toBe(0);
  });

  it('backs off longer after each consecutive failure: 500s and cut connections alike', async () => {
    const queue = new MemoryEventQueue();
    queue.add(event(1));
    const network = scriptedNetwork([reply(500), new Error('socket hang up'), reply(503)]);
    const dispatcher = new Dispatcher(queue, network.transport, clock, (m) => warnings.push(m));
    const delays: number[] = [];
    for (let attempt = 0; attempt < 3; attempt++) {
      await dispatcher.flush();
      delays.push(dispatcher.retryInMs());
      now += dispatcher.retryInMs();
    }
    expect(delays).toEqual([500, 1_000, 2_000]);
    await dispatcher.flush();
    expect(queue.size).toBe(0);
  });

  it('drops only the events a 400 names, sends the rest, and says so', async () => {
    const queue = new MemoryEventQueue();
    [1, 2, 3].forEach((n) => queue.add(event(n)));
    const network = scriptedNetwork([reply(400, {}, { error: 'invalid_request', details: [{ path: '1.event' }] })]);
    await new Dispatcher(queue, network.transport, clock, (m) => warnings.push(m)).flush();
    expect(network.bodies.map((b) => b.map((e) => e.messageId))).toEqual([['m1', 'm2', 'm3'], ['m1', 'm3']]);
    expect(warnings).toEqual(['the API refused 1 event(s) with HTTP 400']);
  });

  it('shares one run between concurrent flushes: one request at a time', async () => {
    const queue = new MemoryEventQueue();
    queue.add(event(1));
    const network = scriptedNetwork([]);
    const dispatcher = new Dispatcher(queue, network.transport, clock, (m) => warnings.push(m));
    await Promise.all([dispatcher.flush(), dispatcher.flush(), dispatcher.flush()]);
    expect(network.bodies).toHaveLength(1);
  });
});
