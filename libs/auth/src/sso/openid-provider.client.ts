import { Inject, Injectable } from '@nestjs/common';
import * as oidc from 'openid-client';
import { APP_CONFIG, type AppConfig, type SsoSettings } from '@foresight/platform';

/** What the browser must bring back to finish a sign-in; kept server-side, under its `state`. */
export interface SignInChecks {
  readonly nonce: string;
  readonly codeVerifier: string;
}

/** What the provider says of the person: ID token claims merged with userinfo's, and the tokens to keep. */
export interface ProviderAnswer {
  readonly claims: Readonly<Record<string, unknown>>;
  readonly idToken: string;
  readonly refreshToken: string | null;
}

/**
 * The relying party, through openid-client: discovery from the issuer's .well-known (once, retried
 * after a failure), authorization code with PKCE (S256), state and nonce, ID tokens checked for
 * issuer, audience, expiry, nonce, algorithm and signature (against the provider's JWKS), refresh,
 * and the end-session URL. Plain http is allowed only for a loopback issuer (config validation).
 */
@Injectable()
export class OpenIdProviderClient {
  private discovered?: Promise<oidc.Configuration>;
  private readonly settings?: SsoSettings;

  constructor(@Inject(APP_CONFIG) config: AppConfig) {
    this.settings = config.dashboard.sso;
  }

  get enabled(): boolean {
    return this.settings !== undefined;
  }

  async authorizationUrl(state: string, checks: SignInChecks): Promise<URL> {
    const settings = this.sso();
    return oidc.buildAuthorizationUrl(await this.configuration(), {
      redirect_uri: settings.redirectUrl,
      scope: settings.scopes,
      state,
      nonce: checks.nonce,
      code_challenge: await oidc.calculatePKCECodeChallenge(checks.codeVerifier),
      code_challenge_method: 'S256',
    });
  }

  /** Exchanges the code of the provider's redirect; throws when any check fails. */
  async finishSignIn(callbackUrl: URL, state: string, checks: SignInChecks): Promise<ProviderAnswer> {
    const configuration = await this.configuration();
    const tokens = await oidc.authorizationCodeGrant(configuration, callbackUrl, {
      expectedState: state,
      expectedNonce: checks.nonce,
      pkceCodeVerifier: checks.codeVerifier,
      idTokenExpected: true,
    });
    const claims = tokens.claims();
    if (!claims || tokens.id_token === undefined) throw new Error('the provider answered no ID token');
    return {
      claims: { ...claims, ...(await this.userInfo(configuration, tokens.access_token, claims.sub)) },
      idToken: tokens.id_token,
      refreshToken: tokens.refresh_token ?? null,
    };
  }

  /** Asks the provider again; throws an OAuth error response when it refuses (grant revoked, person removed). */
  async refresh(refreshToken: string, subject: string, idToken: string): Promise<ProviderAnswer> {
    const configuration = await this.configuration();
    const tokens = await oidc.refreshTokenGrant(configuration, refreshToken);
    const claims = tokens.claims();
    if (claims && claims.sub !== subject) throw new Error('the refreshed ID token names another subject');
    return {
      claims: { ...claims, sub: subject, ...(await this.userInfo(configuration, tokens.access_token, subject)) },
      idToken: tokens.id_token ?? idToken,
      refreshToken: tokens.refresh_token ?? refreshToken,
    };
  }

  /** RP-initiated logout, where the provider offers an end_session_endpoint; null otherwise. */
  async endSessionUrl(idToken: string, postLogoutRedirect: string): Promise<string | null> {
    const configuration = await this.configuration();
    if (!configuration.serverMetadata().end_session_endpoint) return null;
    return oidc.buildEndSessionUrl(configuration, { id_token_hint: idToken, post_logout_redirect_uri: postLogoutRedirect }).href;
  }

  private async userInfo(configuration: oidc.Configuration, accessToken: string, subject: string): Promise<Record<string, unknown>> {
    if (!configuration.serverMetadata().userinfo_endpoint) return {};
    return { ...(await oidc.fetchUserInfo(configuration, accessToken, subject)) };
  }

  private configuration(): Promise<oidc.Configuration> {
    const settings = this.sso();
    this.discovered ??= oidc
      .discovery(
        new URL(settings.issuer),
        settings.clientId,
        undefined,
        settings.clientSecret ? oidc.ClientSecretPost(settings.clientSecret.reveal()) : oidc.None(),
        { execute: [oidc.enableNonRepudiationChecks, ...(settings.issuer.startsWith('http:') ? [oidc.allowInsecureRequests] : [])] },
      )
      .catch((error: unknown) => {
        this.discovered = undefined;
        throw error;
      });
    return this.discovered;
  }

  private sso(): SsoSettings {
    if (!this.settings) throw new Error('single sign-on is not configured');
    return this.settings;
  }
}

/** The provider refused (an OAuth error response or a failed check), as opposed to being unreachable. */
export function providerRefused(error: unknown): boolean {
  if (error instanceof oidc.ResponseBodyError || error instanceof oidc.AuthorizationResponseError || error instanceof oidc.WWWAuthenticateChallengeError) return true;
  // openid-client's failed checks (claims, signatures, unexpected answers) carry OAUTH_* codes; a network failure does not.
  return error instanceof Error && 'code' in error && typeof error.code === 'string' && error.code.startsWith('OAUTH_');
}
