import { signatureHeader } from '@foresight/webhooks';
import { verifyWebhook, WebhookVerificationError } from './webhooks';

const SECRET = 'whsec_0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef';
const BODY = JSON.stringify({ id: 'evt_1', type: 'model.retrained', createdAt: '2026-11-22T10:00:00.000Z', data: { modelId: 'mdl_x' } });
const NOW = 1_795_000_000;

/** Signed by the service's own signing function, as deliveries are. */
describe('verifyWebhook', () => {
  it("accepts the service's signature and returns the event, from text or bytes", () => {
    const header = signatureHeader(SECRET, BODY, NOW - 10);
    expect(verifyWebhook(BODY, header, SECRET, { now: NOW })).toEqual(JSON.parse(BODY));
    expect(verifyWebhook(new TextEncoder().encode(BODY), header, SECRET, { now: NOW }).type).toBe('model.retrained');
  });

  it('refuses another body, another secret, a missing or malformed header', () => {
    const header = signatureHeader(SECRET, BODY, NOW);
    expect(() => verifyWebhook(BODY.replace('mdl_x', 'mdl_y'), header, SECRET, { now: NOW })).toThrow(WebhookVerificationError);
    expect(() => verifyWebhook(BODY, header, `${SECRET}0`, { now: NOW })).toThrow(/does not match/);
    expect(() => verifyWebhook(BODY, undefined, SECRET, { now: NOW })).toThrow(/Signature header/);
    expect(() => verifyWebhook(BODY, 'v1=abc', SECRET, { now: NOW })).toThrow(/Signature header/);
  });

  it('refuses signatures older (or newer) than the tolerance, 300 s by default', () => {
    const header = signatureHeader(SECRET, BODY, NOW - 301);
    expect(() => verifyWebhook(BODY, header, SECRET, { now: NOW })).toThrow(/tolerance/);
    expect(() => verifyWebhook(BODY, signatureHeader(SECRET, BODY, NOW + 301), SECRET, { now: NOW })).toThrow(/tolerance/);
    expect(verifyWebhook(BODY, header, SECRET, { now: NOW, toleranceSeconds: 600 }).id).toBe('evt_1');
  });

  it('accepts any of several v1 signatures (a receiver rotating secrets)', () => {
    const header = signatureHeader(SECRET, BODY, NOW);
    const other = signatureHeader('whsec_other', BODY, NOW).split(',')[1];
    expect(verifyWebhook(BODY, `${header.split(',')[0]},${other},${header.split(',')[1]}`, SECRET, { now: NOW }).id).toBe('evt_1');
  });
});
