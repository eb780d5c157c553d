import { createHash } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import * as oidc from 'openid-client';
import { REDIS, type RedisClient, RedisKeysService } from '@foresight/platform';
import type { SignInChecks } from './openid-provider.client';

/** A sign-in left unfinished this long is forgotten. */
const ATTEMPT_TTL_SECONDS = 600;

/**
 * Sign-ins under way: the nonce and PKCE verifier kept in Redis under the hash of their `state`, taken
 * exactly once (GETDEL), so a callback replayed, or carrying a state this service never issued, finds nothing.
 */
@Injectable()
export class SignInAttempts {
  constructor(
    @Inject(REDIS) private readonly redis: RedisClient,
    private readonly keys: RedisKeysService,
  ) {}

  async begin(): Promise<{ state: string; checks: SignInChecks }> {
    const state = oidc.randomState();
    const checks: SignInChecks = { nonce: oidc.randomNonce(), codeVerifier: oidc.randomPKCECodeVerifier() };
    await this.redis.set(this.key(state), JSON.stringify(checks), 'EX', ATTEMPT_TTL_SECONDS);
    return { state, checks };
  }

  async take(state: string): Promise<SignInChecks | null> {
    const stored = await this.redis.getdel(this.key(state));
    return stored === null ? null : (JSON.parse(stored) as SignInChecks);
  }

  private key(state: string): string {
    return this.keys.key('sso', 'sign-in', createHash('sha256').update(state).digest('base64url'));
  }
}
