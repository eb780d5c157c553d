import { createHash, randomInt } from 'node:crypto';

const ALPHABET = 'abcdefghijklmnopqrstuvwxyz0123456789';

/** `prefix_` + 16 lowercase alphanumerics (about 82 bits), e.g. `org_k3v9...`. */
type IdPrefix = 'org' | 'tok' | 'mdl' | 'ver' | 'run' | 'whk' | 'dlv' | 'era' | 'evt' | 'aud' | 'scr' | 'ses';

export function newId(prefix: IdPrefix): string {
  let id = `${prefix}_`;
  for (let i = 0; i < 16; i++) id += ALPHABET[randomInt(ALPHABET.length)];
  return id;
}

/**
 * The id of something named by `key` (an event of a given run, user and model, say), shaped like
 * newId's: every producer that names the same thing gets the same id, so a repeated producer is
 * recognized downstream (a webhook delivery is unique per event id) however long ago the first was.
 */
export function derivedId(prefix: IdPrefix, key: string): string {
  const digest = createHash('sha256').update(key).digest();
  let id = `${prefix}_`;
  // 16 characters of 36 from 16 bytes: the modulo bias is irrelevant to uniqueness.
  for (let i = 0; i < 16; i++) id += ALPHABET[digest[i] % ALPHABET.length];
  return id;
}
