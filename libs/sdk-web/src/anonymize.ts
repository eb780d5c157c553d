import { toHex } from '@foresight/sdk-core';

/**
 * Custom property values replaced by the SHA-256 (hex) of their text, keys kept, at any depth:
 * models still see which values repeat, the service never sees the values. Hashing hides a value
 * from the service, not from someone who can guess it (a plan name is easy to guess).
 */
export async function anonymizeProperties(properties: Record<string, unknown>, subtle: SubtleCrypto): Promise<Record<string, unknown>> {
  const entries = await Promise.all(Object.entries(properties).map(async ([key, value]) => [key, await anonymizeValue(value, subtle)] as const));
  return Object.fromEntries(entries);
}

async function anonymizeValue(value: unknown, subtle: SubtleCrypto): Promise<unknown> {
  if (value === null || value === undefined) return value;
  if (Array.isArray(value)) return Promise.all(value.map((item) => anonymizeValue(item, subtle)));
  if (typeof value === 'object') return anonymizeProperties(value as Record<string, unknown>, subtle);
  // eslint-disable-next-line @typescript-eslint/no-base-to-string -- only primitives are left: objects and arrays are handled above
  return sha256Hex(String(value), subtle);
}

async function sha256Hex(text: string, subtle: SubtleCrypto): Promise<string> {
  return toHex(new Uint8Array(await subtle.digest('SHA-256', new TextEncoder().encode(text))));
}
