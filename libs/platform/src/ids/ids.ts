import { createHash, randomInt } from 'node:crypto';

const ALPHABET = 'abcdefghijklmnopqrstuvwxyz0123456789';

/** `prefix_` + 16 lowercase alphanumerics (about 82 bits), e.g. `org_k3v9...`. */
export function newId(prefix: 'org' | 'tok' | 'mdl' | 'ver' | 'run' | 'whk' | 'dlv' | 'era' | 'evt' | 'aud' | 'scr' | 'ses'): string {
  let id = `${prefix}_`;
  for (let i = 0; i < 16; i++) id += ALPHABET[randomInt(ALPHABET.length)];
  return id;
}

/**
 * `prefix_` + 16 lowercase alphanumerics derived from `cause`: the same cause always names the same
 * thing (a retried job's announcement keeps its event id, so receivers and deliveries dedupe on it).
 */
export function derivedId(prefix: 'evt', cause: string): string {
  const digest = createHash('sha256').update(cause).digest();
  let id = `${prefix}_`;
  for (let i = 0; i < 16; i++) id += ALPHABET[digest[i] % ALPHABET.length];
  return id;
}
