/**
 * 128 random bits as 32 hex characters. getRandomValues also works on plain-http pages, unlike
 * randomUUID; React Native without a crypto polyfill falls back to Math.random, which is enough for
 * message and session ids (deduplication keys, not secrets).
 */
export function randomId(): string {
  const bytes = new Uint8Array(16);
  const crypto = (globalThis as { crypto?: { getRandomValues?(array: Uint8Array): Uint8Array } }).crypto;
  if (crypto?.getRandomValues) crypto.getRandomValues(bytes);
  else for (let i = 0; i < bytes.length; i++) bytes[i] = Math.floor(Math.random() * 256);
  return toHex(bytes);
}

export function toHex(bytes: Uint8Array): string {
  return Array.from(bytes, (byte) => byte.toString(16).padStart(2, '0')).join('');
}
