import { Controller, Get, HttpCode, Inject, Post, Req, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { type BucketDecision, DashboardSessionsService, OpenIdProviderClient, type PersonPrincipal, RateLimitedError, RateLimiterService, type RouteScope, SignInAttempts } from '@foresight/auth';
import { APP_CONFIG, type AppConfig, AppError, type DashboardSettings, notFound, type SsoSettings } from '@foresight/platform';
import { Public } from '../http/access.decorators';
import { pageHeaders } from '../http/page-headers';
import { SessionCookies } from '../http/session-cookie';

/** A sign-in must come back from the provider within this (the Redis attempt lives as long). */
const SIGN_IN_COOKIE_SECONDS = 600;

/** What the dashboard learns at start: how it may sign in, and who is signed in. */
interface SessionAnswer {
  tokenSignIn: boolean;
  singleSignOn: boolean;
  session: { person: PersonPrincipal['person']; organizationId: string; role: PersonPrincipal['role']; scopes: readonly RouteScope[]; csrfToken: string } | null;
}

/**
 * Single sign-on for the dashboard (OpenID Connect, authorization code + PKCE), outside /v1: the
 * browser navigates to /auth/login and comes back to /auth/callback; the dashboard asks /auth/session
 * who is signed in (and its CSRF token), and ends the session with POST /auth/logout.
 */
@ApiExcludeController()
@Public()
@Controller('auth')
export class SsoController {
  private readonly cookies: SessionCookies;
  private readonly dashboard: DashboardSettings;

  constructor(
    private readonly provider: OpenIdProviderClient,
    private readonly attempts: SignInAttempts,
    private readonly sessions: DashboardSessionsService,
    private readonly rateLimiter: RateLimiterService,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.dashboard = config.dashboard;
    this.cookies = new SessionCookies(config.dashboard);
  }

  @Get('login')
  async login(@Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    this.sso();
    await this.limit(request);
    const { state, checks } = await this.attempts.begin();
    const url = await this.provider.authorizationUrl(state, checks);
    // The state also goes into a cookie: the callback must come back to the browser that started it.
    this.cookies.set(reply, this.cookies.signInName, state, SIGN_IN_COOKIE_SECONDS);
    await reply.header('cache-control', 'no-store').redirect(url.href, 302);
  }

  /** Refusals answer a small page (the browser is on a navigation, not a fetch), with their status; nothing is created. */
  @Get('callback')
  async callback(@Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const sso = this.sso();
    await this.limit(request);
    const started = this.cookies.value(request, this.cookies.signInName);
    this.cookies.clear(reply, this.cookies.signInName);
    try {
      const secret = await this.signIn(request, sso, started);
      this.cookies.set(reply, this.cookies.sessionName, secret, Math.floor(this.dashboard.sessionMaxAgeMs / 1000));
      await reply.header('cache-control', 'no-store').redirect('/dashboard/', 302);
    } catch (error) {
      if (!(error instanceof SignInRefused)) throw error;
      await reply.status(error.status).headers({ ...REFUSAL_PAGE_HEADERS, 'cache-control': 'no-store', 'content-type': 'text/html; charset=utf-8' }).send(refusalPage(error));
    }
  }

  /** Checks the provider's answer and the person's grant; answers the new session's secret. */
  private async signIn(request: FastifyRequest, sso: SsoSettings, started: string | undefined): Promise<string> {
    const callbackUrl = new URL(sso.redirectUrl);
    callbackUrl.search = new URL(request.url, callbackUrl).search;
    const state = callbackUrl.searchParams.get('state');
    if (state === null || state !== started) throw new SignInRefused(400, "The sign-in's state does not match the one this browser started.");
    const checks = await this.attempts.take(state);
    if (!checks) throw new SignInRefused(400, 'This sign-in is unknown, expired or already used.');
    const answer = await this.provider.finishSignIn(callbackUrl, state, checks).catch((error: unknown) => {
      throw new SignInRefused(400, `The identity provider's answer was refused: ${error instanceof Error ? error.message : 'it failed its checks'}.`);
    });
    const grant = await this.sessions.grantOf(answer);
    if (!grant) throw new SignInRefused(403, 'None of your groups is granted a role in Foresight. Ask an administrator of your organization to grant one of your groups a role.');
    const previous = this.cookies.value(request, this.cookies.sessionName);
    if (previous !== undefined) await this.sessions.replace(previous);
    return this.sessions.create(grant, answer);
  }

  @Get('session')
  async session(@Req() request: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply): Promise<SessionAnswer> {
    void reply.header('cache-control', 'no-store');
    const answer: SessionAnswer = { tokenSignIn: this.dashboard.tokenSignIn, singleSignOn: this.provider.enabled, session: null };
    const secret = this.cookies.value(request, this.cookies.sessionName);
    if (secret === undefined || !this.provider.enabled || !this.cookies.sameOrigin(request)) return answer;
    // As the access guard does: an address that spent its budget on unknown cookies is refused before the lookup.
    refuseWhenSpent(await this.rateLimiter.checkUnauthenticated(request.ip));
    try {
      const principal = await this.sessions.authenticate(secret);
      const { person, organizationId, role, scopes } = principal;
      return { ...answer, session: { person, organizationId, role, scopes, csrfToken: this.sessions.csrfToken(secret) } };
    } catch (error) {
      if (!(error instanceof AppError && error.code === 'invalid_token')) throw error;
      await this.rateLimiter.takeUnauthenticated(request.ip);
      this.cookies.clear(reply, this.cookies.sessionName);
      return answer;
    }
  }

  /** Ends the session (with its CSRF token, from the dashboard's origin); answers where to send the browser for the provider's logout. */
  @Post('logout')
  @HttpCode(200)
  async logout(@Req() request: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply): Promise<{ redirect: string | null }> {
    this.sso();
    const session = this.cookies.sessionSecret(request);
    if (!session || !this.cookies.sameOrigin(request) || !this.sessions.csrfTokenMatches(session.secret, session.csrf)) {
      throw new AppError('invalid_token', 'Sign-out needs the session cookie and its CSRF token, from the dashboard.');
    }
    this.cookies.clear(reply, this.cookies.sessionName);
    const principal = await this.sessions.authenticate(session.secret).catch(() => null);
    const idToken = principal ? await this.sessions.end(principal) : null;
    return { redirect: idToken === null ? null : await this.provider.endSessionUrl(idToken, `${this.cookies.origin}/dashboard/`) };
  }

  /** Each sign-in step spends from its client address's unauthenticated budget: starting sign-ins stores state in Redis. */
  private async limit(request: FastifyRequest): Promise<void> {
    refuseWhenSpent(await this.rateLimiter.takeUnauthenticated(request.ip));
  }

  private sso(): SsoSettings {
    if (!this.dashboard.sso) throw notFound('single sign-on (OIDC_ISSUER is not set)');
    return this.dashboard.sso;
  }
}

function refuseWhenSpent(decision: BucketDecision): void {
  if (!decision.allowed) throw new RateLimitedError(Math.max(1, Math.ceil(decision.retryAfterMs / 1000)));
}

/** A sign-in the callback refuses: 400 (state, code or ID token refused) or 403 (no grant). */
class SignInRefused extends Error {
  constructor(
    readonly status: 400 | 403,
    message: string,
  ) {
    super(message);
  }
}

/** The refusal page has no script, style or image: it loads nothing, and nothing may frame it. */
const REFUSAL_PAGE_HEADERS = pageHeaders("default-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'");

function refusalPage(refusal: SignInRefused): string {
  const title = refusal.status === 403 ? 'Sign-in refused' : 'Sign-in failed';
  return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>${title} · Foresight</title></head>
<body>
<main>
<h1>${title}</h1>
<p>${escapeHtml(refusal.message)}</p>
<p><a href="/dashboard/">Back to the dashboard</a></p>
</main>
</body>
</html>
`;
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
