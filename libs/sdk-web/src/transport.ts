import { rejectedIndexes, type SdkEvent } from './payload';

/** Browsers refuse keepalive requests whose bodies in flight exceed 64 KiB. */
const KEEPALIVE_BODY_LIMIT = 60 * 1024;

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
  ) {}

  async send(events: readonly SdkEvent[]): Promise<SendOutcome> {
    const body = new TextEncoder().encode(JSON.stringify(events));
    const headers = { authorization: `Bearer ${this.token}`, 'content-type': 'application/json' };
    try {
      // keepalive lets a flush started on page hide outlive the page. sendBeacon, the usual tool for
      // that, cannot carry the Authorization header. No cookies: the token is the only credential.
      const response = await fetch(this.endpoint, {
        method: 'POST',
        headers,
        body,
        keepalive: body.byteLength < KEEPALIVE_BODY_LIMIT,
        credentials: 'omit',
      });
      return await outcomeOf(response);
    } catch {
      return { kind: 'retry' };
    }
  }
}

async function outcomeOf(response: Response): Promise<SendOutcome> {
  const { status } = response;
  if (status >= 200 && status < 300) return { kind: 'sent' };
  if (status === 408 || status === 429 || status >= 500) {
    const retryAfter = Number(response.headers.get('retry-after'));
    return { kind: 'retry', retryAfterSeconds: retryAfter > 0 ? retryAfter : undefined };
  }
  const body: unknown = await response.json().catch(() => undefined);
  return { kind: 'rejected', status, indexes: status === 400 ? rejectedIndexes(body) : [] };
}
