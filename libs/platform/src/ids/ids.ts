import { randomInt } from 'node:crypto';

const ALPHABET = 'abcdefghijklmnopqrstuvwxyz0123456789';

/** `prefix_` + 16 lowercase alphanumerics (about 82 bits), e.g. `org_k3v9...`. */
export function newId(prefix: 'org' | 'tok' | 'mdl' | 'ver' | 'run' | 'whk' | 'dlv' | 'era' | 'evt' | 'aud' | 'scr' | 'ses'): string {
  let id = `${prefix}_`;
  for (let i = 0; i < 16; i++) id += ALPHABET[randomInt(ALPHABET.length)];
  return id;
}
