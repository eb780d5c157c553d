import { generateWebhookSecret, signatureHeader } from './webhook-signature';

describe('webhook signatures', () => {
  it('sign "t.body" with HMAC-SHA-256 under the secret (value from `openssl dgst -sha256 -hmac`)', () => {
    expect(signatureHeader('whsec_test', '{"id":"evt_1"}', 1_700_000_000)).toBe(
      't=1700000000,v1=c89214b5b5da833daed6f0b8c5bb6bd58cea9022bd80ccc78230f3942d632925',
    );
  });

  it('change with the timestamp, the body and the secret', () => {
    const base = signatureHeader('whsec_a', '{}', 1);
    expect(signatureHeader('whsec_a', '{}', 2).split('v1=')[1]).not.toBe(base.split('v1=')[1]);
    expect(signatureHeader('whsec_a', '{ }', 1)).not.toBe(base);
    expect(signatureHeader('whsec_b', '{}', 1)).not.toBe(base);
  });

  it('use secrets of 256 random bits with a recognizable prefix', () => {
    const secret = generateWebhookSecret();
    expect(secret).toMatch(/^whsec_[0-9a-f]{64}$/);
    expect(generateWebhookSecret()).not.toBe(secret);
  });
});
