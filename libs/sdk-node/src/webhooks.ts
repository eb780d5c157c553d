import { createHmac, timingSafeEqual } from 'node:crypto';

/** A delivery as the API posts it. */
export interface WebhookEvent<Data = Record<string, unknown>> {
  id: string;
  type: 'prediction.updated' | 'model.retrained' | 'model.failed' | 'drift.detected' | 'audience.entered' | 'audience.left' | (string & {});
  createdAt: string;
  data: Data;
}

export interface VerifyWebhookOptions {
  /** Oldest signature accepted, in seconds (replays older than this are refused). Default 300. */
  toleranceSeconds?: number;
  /** The current time in Unix seconds. Default: now. */
  now?: number;
}

export class WebhookVerificationError extends Error {
  override name = 'WebhookVerificationError';
}

const DEFAULT_TOLERANCE_SECONDS = 300;

/**
 * Checks a delivery's `Signature: t=<unix>,v1=<hex HMAC-SHA-256 of "t.body">` against the webhook's
 * secret (`whsec_…`, keyed as the whole string) and returns the parsed event; throws
 * WebhookVerificationError otherwise. Pass the body exactly as received (raw bytes or text, never
 * re-serialized JSON). Comparison is constant-time; any of several v1 values may match.
 */
export function verifyWebhook<Data = Record<string, unknown>>(
  body: string | Uint8Array,
  signatureHeader: string | null | undefined,
  secret: string,
  options: VerifyWebhookOptions = {},
): WebhookEvent<Data> {
  if (typeof secret !== 'string' || secret.length === 0) throw new TypeError('verifyWebhook: the webhook secret is required');
  const { timestamp, signatures } = parseSignature(signatureHeader ?? '');
  const tolerance = options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
  const now = options.now ?? Math.floor(Date.now() / 1000);
  if (Math.abs(now - timestamp) > tolerance) throw new WebhookVerificationError(`the signature is ${now - timestamp} s old, beyond the ${tolerance} s tolerance`);
  const text = typeof body === 'string' ? body : new TextDecoder().decode(body);
  const expected = createHmac('sha256', secret).update(`${timestamp}.${text}`).digest();
  const matches = signatures.some((hex) => {
    const given = Buffer.from(hex, 'hex');
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
  if (!matches) throw new WebhookVerificationError('the signature does not match the body and secret');
  return JSON.parse(text) as WebhookEvent<Data>;
}

function parseSignature(header: string): { timestamp: number; signatures: string[] } {
  let timestamp = Number.NaN;
  const signatures: string[] = [];
  for (const part of header.split(',')) {
    const [key, value = ''] = part.trim().split('=', 2);
    if (key === 't' && /^\d+$/.test(value)) timestamp = Number(value);
    if (key === 'v1' && /^[0-9a-f]{64}$/i.test(value)) signatures.push(value);
  }
  if (Number.isNaN(timestamp) || signatures.length === 0) throw new WebhookVerificationError('the Signature header is not t=<unix seconds>,v1=<hex>');
  return { timestamp, signatures };
}
