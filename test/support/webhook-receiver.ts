import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedRequest {
  headers: IncomingHttpHeaders;
  body: string;
  /** When it arrived (and was answered, unless it hangs), in epoch ms. */
  at: number;
  /** What the receiver answered, null while it hangs. */
  status: number | null;
}

/**
 * How long after a receiver's 2xx the delivery's success may still be unrecorded. Delivery is at least
 * once: a worker killed in that time leaves the delivery pending, and the worker that takes its job
 * over (once the job's lock expires) sends it again, with the same event id and delivery id.
 */
export const UNRECORDED_SUCCESS_MS = 5_000;

/** What a receiver answers to its n-th request (1-based); `hang` never answers. */
export type Answer = (n: number) => number | 'hang';

/** A delivery's JSON body (the webhook payload). */
export interface WebhookBody {
  id: string;
  type: string;
  createdAt: string;
  data: Record<string, unknown>;
}

/** A real webhook receiver on loopback: records every request and how many were open at once. */
export class Receiver {
  readonly requests: ReceivedRequest[] = [];
  private open = 0;
  maxOpen = 0;

  private constructor(
    private readonly server: Server,
    readonly url: string,
  ) {}

  static async start(answer: Answer): Promise<Receiver> {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    // The query string stands for a receiver token; it must never end up in logs.
    const receiver = new Receiver(server, `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks?token=receiver-secret`);
    server.on('request', (req, res) => {
      receiver.open += 1;
      receiver.maxOpen = Math.max(receiver.maxOpen, receiver.open);
      // The response closes when answered or when the sender drops the connection (its timeout).
      res.on('close', () => (receiver.open -= 1));
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const received: ReceivedRequest = { headers: req.headers, body: Buffer.concat(chunks).toString(), at: Date.now(), status: null };
        receiver.requests.push(received);
        const status = answer(receiver.requests.length);
        if (status === 'hang') return;
        received.status = status;
        res.writeHead(status).end();
      });
    });
    return receiver;
  }

  bodies(): WebhookBody[] {
    return this.requests.map((r) => JSON.parse(r.body) as WebhookBody);
  }

  /** Per event id, when the receiver answered it 2xx (epoch ms), in order. */
  successes(): Map<string, number[]> {
    const bodies = this.bodies();
    const times = new Map<string, number[]>();
    for (const [i, { status, at }] of this.requests.entries()) {
      if (status !== null && status >= 200 && status < 300) times.set(bodies[i].id, [...(times.get(bodies[i].id) ?? []), at]);
    }
    return times;
  }

  /**
   * Event ids answered 2xx more than once where no worker was killed within UNRECORDED_SUCCESS_MS after
   * the first 2xx (`workerKills`: when each was killed, epoch ms): repeats at-least-once delivery does
   * not explain.
   */
  unexplainedRepeats(workerKills: readonly number[]): string[] {
    return [...this.successes()]
      .filter(([, [first, ...again]]) => again.length > 0 && !workerKills.some((killedAt) => killedAt >= first && killedAt <= first + UNRECORDED_SUCCESS_MS))
      .map(([id]) => id);
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }
}

/** Checks a `Signature: t=<unix>,v1=<hex>` header the way a receiver would. */
export function verifySignature(secret: string, received: ReceivedRequest): boolean {
  const match = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(String(received.headers.signature));
  if (!match) return false;
  const expected = createHmac('sha256', secret).update(`${match[1]}.${received.body}`).digest();
  return timingSafeEqual(expected, Buffer.from(match[2], 'hex')) && Math.abs(Date.now() / 1000 - Number(match[1])) < 300;
}
