import { createHmac, randomBytes } from 'node:crypto';

/** `whsec_` + 256 random bits in hex, shaped so secret scanners spot leaks. */
export function generateWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString('hex')}`;
}

/** The encryption context of a webhook's stored secret: a secret copied to another webhook's row does not decrypt. */
export function secretContext(webhookId: string): string {
  return `webhook:${webhookId}`;
}

/**
 * The `Signature` header: `t=<unix seconds>,v1=<hex HMAC-SHA-256 of "t.body">`
 * keyed with the whole secret string. The timestamp inside the MAC lets receivers refuse replays.
 */
export function signatureHeader(secret: string, body: string, unixSeconds: number): string {
  const mac = createHmac('sha256', secret).update(`${unixSeconds}.${body}`).digest('hex');
  return `t=${unixSeconds},v1=${mac}`;
}
