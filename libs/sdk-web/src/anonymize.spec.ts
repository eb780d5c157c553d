import { anonymizeProperties } from './anonymize';

// SHA-256 of the UTF-8 text, computed independently (sha256sum).
const SHA256_PRO = '07ed400759a0f606a8b5bfa84712aabe7d1b1c45cb6536c8a5727446b6647b84';
const SHA256_42 = '73475cb40a568e8da8a045ced110137e159f890ac4da883b6b17dc651b3a8049';
const SHA256_TRUE = 'b5bea41b6c623f7c09f1bf24dcae58ebab3c0cdd90ad966bc43a45b44867e12b';

describe('anonymizeProperties', () => {
  it('replaces every value with its SHA-256, keeping keys, nesting and nulls', async () => {
    const hashed = await anonymizeProperties({ plan: 'pro', seats: 42, trial: true, none: null, cart: { plan: 'pro', tags: ['pro'] } }, crypto.subtle);
    expect(hashed).toEqual({
      plan: SHA256_PRO,
      seats: SHA256_42,
      trial: SHA256_TRUE,
      none: null,
      cart: { plan: SHA256_PRO, tags: [SHA256_PRO] },
    });
  });

  it('never leaves a clear value in the result', async () => {
    const text = JSON.stringify(await anonymizeProperties({ email_domain: 'example.com', experiment: { arm: 'B-7' } }, crypto.subtle));
    expect(text).not.toMatch(/example\.com|B-7/);
  });
});
