/** 128 random bits as 32 hex characters. getRandomValues also works on plain-http pages, unlike randomUUID. */
export function randomId(): string {
  return toHex(crypto.getRandomValues(new Uint8Array(16)));
}

export function toHex(bytes: Uint8Array): string {
  return Array.from(bytes, (byte) => byte.toString(16).padStart(2, '0')).join('');
}
