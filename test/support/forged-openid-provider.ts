import { createSign, generateKeyPairSync, type KeyObject, randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** What the forged provider gets wrong in the ID token it answers; `honest` gets nothing wrong. */
export type IdTokenForgery = 'honest' | 'wrong-nonce' | 'wrong-audience' | 'wrong-issuer' | 'expired' | 'alg-none' | 'other-key';

/**
 * An OpenID provider written for refusals: discovery, JWKS, an authorization endpoint that answers
 * at once (no login), and a token endpoint whose ID token is broken as `forgery` says. Only what a
 * real provider would never send, which oidc-provider cannot be made to send.
 */
export class ForgedOpenIdProvider {
  forgery: IdTokenForgery = 'honest';
  private readonly key = generateKeyPairSync('rsa', { modulusLength: 2048 });
  private readonly otherKey = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey;
  private readonly kid = randomBytes(8).toString('hex');
  /** Code → the nonce its authorization request carried. */
  private readonly codes = new Map<string, string>();

  private constructor(
    private readonly server: Server,
    private readonly clientId: string,
    readonly claims: Record<string, unknown>,
  ) {}

  static async start(clientId: string, claims: Record<string, unknown>): Promise<ForgedOpenIdProvider> {
    const server = createServer();
    const provider = new ForgedOpenIdProvider(server, clientId, claims);
    server.on('request', (request, response) => {
      const url = new URL(request.url ?? '/', provider.issuer);
      const json = (body: unknown) => response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
      if (url.pathname === '/.well-known/openid-configuration') return json(provider.discovery());
      if (url.pathname === '/jwks') return json({ keys: [{ ...provider.key.publicKey.export({ format: 'jwk' }), kid: provider.kid, alg: 'RS256', use: 'sig' }] });
      if (url.pathname === '/authorize') {
        const code = randomBytes(16).toString('hex');
        provider.codes.set(code, url.searchParams.get('nonce') ?? '');
        const back = new URL(url.searchParams.get('redirect_uri') ?? '');
        back.searchParams.set('code', code);
        back.searchParams.set('state', url.searchParams.get('state') ?? '');
        return response.writeHead(302, { location: back.href }).end();
      }
      if (url.pathname === '/token') {
        let body = '';
        request.on('data', (chunk: Buffer) => (body += chunk.toString()));
        request.on('end', () => {
          const nonce = provider.codes.get(new URLSearchParams(body).get('code') ?? '');
          if (nonce === undefined) return response.writeHead(400, { 'content-type': 'application/json' }).end('{"error":"invalid_grant"}');
          json({ access_token: randomBytes(16).toString('hex'), token_type: 'Bearer', expires_in: 300, id_token: provider.idToken(nonce) });
        });
        return;
      }
      response.writeHead(404).end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return provider;
  }

  get issuer(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  private discovery(): Record<string, unknown> {
    return {
      issuer: this.issuer,
      authorization_endpoint: `${this.issuer}/authorize`,
      token_endpoint: `${this.issuer}/token`,
      jwks_uri: `${this.issuer}/jwks`,
      response_types_supported: ['code'],
      subject_types_supported: ['public'],
      id_token_signing_alg_values_supported: ['RS256'],
      code_challenge_methods_supported: ['S256'],
    };
  }

  private idToken(nonce: string): string {
    const now = Math.floor(Date.now() / 1000);
    const forgery = this.forgery;
    const claims = {
      ...this.claims,
      iss: forgery === 'wrong-issuer' ? 'https://issuer.example' : this.issuer,
      aud: forgery === 'wrong-audience' ? 'another-client' : this.clientId,
      nonce: forgery === 'wrong-nonce' ? 'another-nonce' : nonce,
      iat: forgery === 'expired' ? now - 7200 : now,
      exp: forgery === 'expired' ? now - 3600 : now + 300,
    };
    const header = forgery === 'alg-none' ? { alg: 'none', typ: 'JWT' } : { alg: 'RS256', typ: 'JWT', kid: this.kid };
    const signingInput = `${base64url(header)}.${base64url(claims)}`;
    if (forgery === 'alg-none') return `${signingInput}.`;
    return `${signingInput}.${sign(signingInput, forgery === 'other-key' ? this.otherKey : this.key.privateKey)}`;
  }
}

function base64url(value: unknown): string {
  return Buffer.from(JSON.stringify(value)).toString('base64url');
}

function sign(input: string, key: KeyObject): string {
  return createSign('RSA-SHA256').update(input).sign(key).toString('base64url');
}
