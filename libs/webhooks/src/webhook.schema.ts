import { z } from 'zod';
import { DOMAIN_EVENT_TYPES, printableText } from '@foresight/platform';

/** POST /v1/webhooks. Where the URL points is checked by AddressPolicy. */
export const createWebhookSchema = z.strictObject({
  url: z
    .url({ protocol: /^https?$/, error: 'an http:// or https:// URL' })
    .max(2048)
    // Credentials in the URL would be stored and listed in clear; receivers check the Signature instead.
    .refine(withoutCredentials, 'must not contain credentials')
    // The URL parser would read a lone surrogate as U+FFFD: the address stored and listed would not be the one sent.
    .pipe(printableText(2048)),
  events: z
    .array(z.enum(DOMAIN_EVENT_TYPES))
    .min(1)
    .transform((events) => [...new Set(events)]),
});

/** Zod runs every check, so this one also sees strings that are not URLs (the url check reports those). */
function withoutCredentials(text: string): boolean {
  if (!URL.canParse(text)) return true;
  const url = new URL(text);
  return url.username === '' && url.password === '';
}

export type CreateWebhook = z.infer<typeof createWebhookSchema>;

export const listDeliveriesSchema = z.strictObject({
  limit: z.coerce.number().int().min(1).max(500).default(100),
});

export type ListDeliveries = z.infer<typeof listDeliveriesSchema>;
