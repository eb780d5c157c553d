import { setTimeout as sleep } from 'node:timers/promises';
import { ForgedOpenIdProvider, type IdTokenForgery } from '../support/forged-openid-provider';
import { request } from '../support/http';
import { freePort } from '../support/ports';
import { cliJson, type RunningProcess, startApi } from '../support/processes';
import { type OrganizationWithToken, TestSuite } from '../support/suite';

jest.setTimeout(120_000);

interface Callback {
  status: number;
  location: string | null;
  body: string;
  contentType: string | null;
  csp: string | null;
  frames: string | null;
  url: URL;
  cookie: string;
  setCookie: string | null;
}

/**
 * Sign-ins that must fail (issue 44), over HTTP against the real API process: a forged provider
 * answers ID tokens broken one way each, and callbacks come back with a wrong or replayed state.
 * Each is refused and no session is created.
 */
describe('single sign-on refusals', () => {
  let suite: TestSuite;
  let org: OrganizationWithToken;
  let provider: ForgedOpenIdProvider;
  let api: RunningProcess;
  const sessions = async () => Number((await suite.sql<{ n: string }>('SELECT count(*) AS n FROM dashboard_sessions'))[0].n);
  /** An API whose single sign-on is the forged provider, on a port known before it starts (the redirect URL names it). */
  const startSignInApi = async (env: Record<string, string> = {}): Promise<RunningProcess> => {
    const port = await freePort();
    return startApi(
      { ...suite.env, OIDC_ISSUER: provider.issuer, OIDC_CLIENT_ID: 'foresight-dashboard', OIDC_REDIRECT_URL: `http://127.0.0.1:${port}/auth/callback`, ...env },
      port,
    );
  };
  /** Sign-in steps and session probes from this address: three, then one a minute. */
  const SMALL_UNAUTHENTICATED_BUDGET = { UNAUTHENTICATED_RATE_LIMIT_PER_MINUTE: '1', UNAUTHENTICATED_BURST_PER_MINUTE: '3' };

  beforeAll(async () => {
    suite = await TestSuite.create('sso_refusals');
    org = await suite.createOrganization('sso_refusals');
    provider = await ForgedOpenIdProvider.start('foresight-dashboard', { sub: 'mallory', email: 'mallory@example.com', groups: ['fs-admins'] });
    api = await startSignInApi();
    await grantAdmins();
  });

  afterAll(async () => {
    await api?.stop();
    await provider?.close();
    await suite?.destroy();
  });

  const grantAdmins = () => cliJson(suite.env, ['sso', 'grant', '--org', org.organization.id, '--group', 'fs-admins', '--role', 'admin']);

  /** A refused callback: a page (never JSON) with the strict headers of every page, linking back to the dashboard. */
  function expectRefusalPage(callback: Callback, status: number, text: string): void {
    expect({ status: callback.status, contentType: callback.contentType, csp: callback.csp, frames: callback.frames }).toEqual({
      status,
      contentType: 'text/html; charset=utf-8',
      csp: expect.stringContaining("default-src 'none'"),
      frames: 'DENY',
    });
    expect(callback.body).toContain(text);
    expect(callback.body).toContain('<a href="/dashboard/">');
    expect(callback.body).not.toContain('<script');
    expect(callback.setCookie).toBeNull();
  }

  /** /auth/login, the provider's redirect, and the callback as a browser would follow them; `tamper` changes the callback first. */
  async function signIn(tamper: (callback: URL, cookie: string) => { url: URL; cookie: string } = (url, cookie) => ({ url, cookie }), on: RunningProcess = api): Promise<Callback> {
    const login = await fetch(`${on.baseUrl}/auth/login`, { redirect: 'manual' });
    expect(login.status).toBe(302);
    const authorization = new URL(login.headers.get('location') ?? '');
    expect(Object.fromEntries(['response_type', 'code_challenge_method'].map((name) => [name, authorization.searchParams.get(name)]))).toEqual({
      response_type: 'code',
      code_challenge_method: 'S256',
    });
    for (const name of ['state', 'nonce', 'code_challenge']) expect(authorization.searchParams.get(name)).toMatch(/^[\w-]{20,}$/);
    const started = (login.headers.get('set-cookie') ?? '').split(';')[0];
    const back = await fetch(authorization, { redirect: 'manual' });
    const { url, cookie } = tamper(new URL(back.headers.get('location') ?? ''), started);
    const answer = await fetch(url, { redirect: 'manual', headers: { cookie } });
    const setCookie = answer.headers.getSetCookie().find((header) => header.startsWith('foresight-session=')) ?? null;
    const header = (name: string) => answer.headers.get(name);
    return { status: answer.status, location: header('location'), body: await answer.text(), contentType: header('content-type'), csp: header('content-security-policy'), frames: header('x-frame-options'), url, cookie, setCookie };
  }

  it('an honest answer signs in, once: the same callback replayed is refused', async () => {
    provider.forgery = 'honest';
    const before = await sessions();
    const first = await signIn();
    expect({ status: first.status, location: first.location }).toEqual({ status: 302, location: '/dashboard/' });
    expect(await sessions()).toBe(before + 1);

    const replayed = await signIn(() => ({ url: first.url, cookie: first.cookie }));
    expectRefusalPage(replayed, 400, 'already used');
    expect(await sessions()).toBe(before + 1);
  });

  it('signing in again rotates the session: the one the browser held before ends', async () => {
    provider.forgery = 'honest';
    const before = await sessions();
    const first = await signIn();
    const firstSession = (first.setCookie ?? '').split(';')[0];
    expect(firstSession).toMatch(/^foresight-session=fss_/);
    const second = await signIn((url, cookie) => ({ url, cookie: `${cookie}; ${firstSession}` }));
    expect(second.status).toBe(302);
    expect((second.setCookie ?? '').split(';')[0]).not.toBe(firstSession);
    expect(await sessions()).toBe(before + 1);
  });

  it.each<IdTokenForgery>(['wrong-nonce', 'wrong-audience', 'wrong-issuer', 'expired', 'alg-none', 'other-key'])('an ID token with %s is refused, and no session is created', async (forgery) => {
    provider.forgery = forgery;
    const before = await sessions();
    const callback = await signIn();
    expectRefusalPage(callback, 400, 'refused');
    expect(await sessions()).toBe(before);
  });

  it('a callback whose state is not the one this browser started is refused, and no session is created', async () => {
    provider.forgery = 'honest';
    const before = await sessions();
    const wrongState = await signIn((url, cookie) => {
      url.searchParams.set('state', 'a-state-this-service-never-issued');
      return { url, cookie };
    });
    const otherBrowser = await signIn((url) => ({ url, cookie: '' }));
    for (const refused of [wrongState, otherBrowser]) expectRefusalPage(refused, 400, 'does not match');
    expect(await sessions()).toBe(before);
  });

  it('a person whose groups hold no grant (revoked with the CLI) is refused with a 403 page, and no session is created', async () => {
    provider.forgery = 'honest';
    expect(await cliJson(suite.env, ['sso', 'grants', '--org', org.organization.id])).toEqual({ organizationId: org.organization.id, grants: [{ group: 'fs-admins', role: 'admin' }] });
    await cliJson(suite.env, ['sso', 'revoke', '--org', org.organization.id, '--group', 'fs-admins']);
    try {
      const before = await sessions();
      expectRefusalPage(await signIn(), 403, 'None of your groups is granted a role');
      expect(await sessions()).toBe(before);
    } finally {
      await grantAdmins();
    }
  });

  it('a session in use lives on past SESSION_IDLE_TIMEOUT; one left unused longer than it is refused and deleted', async () => {
    provider.forgery = 'honest';
    const idleTimeoutMs = 3_000;
    const shortIdle = await startSignInApi({ SESSION_IDLE_TIMEOUT: '3s' });
    try {
      const session = ((await signIn(undefined, shortIdle)).setCookie ?? '').split(';')[0];
      const signedIn = async () => (await request<{ session: { person: { subject: string } } | null }>(`${shortIdle.baseUrl}/auth/session`, { headers: { cookie: session } })).body.session;
      // Used every half interval for twice the timeout: each use keeps it alive.
      const inUseUntil = Date.now() + 2 * idleTimeoutMs;
      while (Date.now() < inUseUntil) {
        expect(await signedIn()).toMatchObject({ person: { subject: 'mallory' } });
        await sleep(idleTimeoutMs / 6);
      }
      const before = await sessions();
      await sleep(idleTimeoutMs + 1_000);
      expect(await signedIn()).toBeNull();
      expect(await sessions()).toBe(before - 1);
    } finally {
      await shortIdle.stop();
    }
  });

  it('starting sign-ins spends the client address budget: a flood of /auth/login gets 429 before it fills Redis', async () => {
    const limited = await startSignInApi(SMALL_UNAUTHENTICATED_BUDGET);
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 5; i++) statuses.push((await fetch(`${limited.baseUrl}/auth/login`, { redirect: 'manual' })).status);
      expect(statuses).toContain(302);
      expect(statuses[statuses.length - 1]).toBe(429);
    } finally {
      await limited.stop();
    }
  });

  it('guessing session cookies at /auth/session spends the client address budget: 429 once it is spent', async () => {
    // A budget of its own: the /auth/login flood above spent this address's.
    const limited = await startSignInApi({ ...SMALL_UNAUTHENTICATED_BUDGET, REDIS_PREFIX: `${suite.env.REDIS_PREFIX}guesses:` });
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 5; i++) statuses.push((await fetch(`${limited.baseUrl}/auth/session`, { headers: { cookie: `foresight-session=fss_guess${i}` } })).status);
      expect(statuses[0]).toBe(200);
      expect(statuses[statuses.length - 1]).toBe(429);
    } finally {
      await limited.stop();
    }
  });
});
