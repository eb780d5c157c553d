import { rejectedIndexes, type SdkEvent } from './payload';

/** What the SDK needs of an HTTP response; fetch's Response has it on every platform. */
export interface HttpReply {
  status: number;
  headers: { get(name: string): string | null };
  json(): Promise<unknown>;
}

/** The platform's network: one POST of a JSON body. Throws when no answer came (offline, connection cut). */
export type HttpPost = (url: string, body: string, headers: Record<string, string>) => Promise<HttpReply>;

export type SendOutcome =
  | { kind: 'sent' }
  /** Worth sending again later: offline, rate limited, server trouble. */
  | { kind: 'retry'; retryAfterSeconds?: number }
  /** Never worth resending as it is; `indexes` are the events the server named, when it did. */
  | { kind: 'rejected'; status: number; indexes: number[] };

export class Transport {
  constructor(
    private readonly endpoint: string,
    private readonly token: string,
    private readonly post: HttpPost,
  ) {}

  async send(events: readonly SdkEvent[]): Promise<SendOutcome> {
    const headers = { authorization: `Bearer ${this.token}`, 'content-type': 'application/json' };
    try {
      return await outcomeOf(await this.post(this.endpoint, JSON.stringify(events), headers));
    } catch {
      return { kind: 'retry' };
    }
  }
}

async function outcomeOf(response: HttpReply): Promise<SendOutcome> {
  const { status } = response;
  if (status >= 200 && status < 300) return { kind: 'sent' };
  if (status === 408 || status === 429 || status >= 500) {
    return { kind: 'retry', retryAfterSeconds: retryAfterSeconds(response.headers.get('retry-after')) };
  }
  const body: unknown = await response.json().catch(() => undefined);
  return { kind: 'rejected', status, indexes: status === 400 ? rejectedIndexes(body) : [] };
}

/** `Retry-After` in seconds, or as an HTTP date (RFC 9110); undefined when absent or unreadable. */
export function retryAfterSeconds(header: string | null, now = Date.now()): number | undefined {
  if (!header) return undefined;
  const seconds = /^\d+$/.test(header.trim()) ? Number(header) : (Date.parse(header) - now) / 1000;
  return seconds > 0 ? seconds : undefined;
}
