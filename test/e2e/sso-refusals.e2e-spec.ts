import { ForgedOpenIdProvider, type IdTokenForgery } from '../support/forged-openid-provider';
import { freePort } from '../support/ports';
import { type RunningProcess, startApi } from '../support/processes';
import { type OrganizationWithToken, TestSuite } from '../support/suite';

jest.setTimeout(120_000);

interface Callback {
  status: number;
  location: string | null;
  body: string;
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

  beforeAll(async () => {
    suite = await TestSuite.create('sso_refusals');
    org = await suite.createOrganization('sso_refusals');
    provider = await ForgedOpenIdProvider.start('foresight-dashboard', { sub: 'mallory', email: 'mallory@example.com', groups: ['fs-admins'] });
    const port = await freePort();
    api = await startApi(
      {
        ...suite.env,
        OIDC_ISSUER: provider.issuer,
        OIDC_CLIENT_ID: 'foresight-dashboard',
        OIDC_REDIRECT_URL: `http://127.0.0.1:${port}/auth/callback`,
        OIDC_ROLE_GRANTS: JSON.stringify([{ group: 'fs-admins', organizationId: org.organization.id, role: 'admin' }]),
      },
      port,
    );
  });

  afterAll(async () => {
    await api?.stop();
    await provider?.close();
    await suite?.destroy();
  });

  /** /auth/login, the provider's redirect, and the callback as a browser would follow them; `tamper` changes the callback first. */
  async function signIn(tamper: (callback: URL, cookie: string) => { url: URL; cookie: string } = (url, cookie) => ({ url, cookie })): Promise<Callback> {
    const login = await fetch(`${api.baseUrl}/auth/login`, { redirect: 'manual' });
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
    return { status: answer.status, location: answer.headers.get('location'), body: await answer.text(), url, cookie, setCookie };
  }

  it('an honest answer signs in, once: the same callback replayed is refused', async () => {
    provider.forgery = 'honest';
    const before = await sessions();
    const first = await signIn();
    expect({ status: first.status, location: first.location }).toEqual({ status: 302, location: '/dashboard/' });
    expect(await sessions()).toBe(before + 1);

    const replayed = await fetch(first.url, { redirect: 'manual', headers: { cookie: first.cookie } });
    expect(replayed.status).toBe(400);
    expect(await replayed.json()).toEqual({ error: 'invalid_request', message: expect.stringContaining('already used') });
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
    expect({ status: callback.status, body: JSON.parse(callback.body) }).toEqual({ status: 400, body: { error: 'invalid_request', message: expect.stringContaining('refused') } });
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
    for (const refused of [wrongState, otherBrowser]) expect({ status: refused.status, error: (JSON.parse(refused.body) as { error: string }).error }).toEqual({ status: 400, error: 'invalid_request' });
    expect(await sessions()).toBe(before);
  });

  it('starting sign-ins spends the client address budget: a flood of /auth/login gets 429 before it fills Redis', async () => {
    const port = await freePort();
    const limited = await startApi(
      {
        ...suite.env,
        OIDC_ISSUER: provider.issuer,
        OIDC_CLIENT_ID: 'foresight-dashboard',
        OIDC_REDIRECT_URL: `http://127.0.0.1:${port}/auth/callback`,
        UNAUTHENTICATED_RATE_LIMIT_PER_MINUTE: '1',
        UNAUTHENTICATED_BURST_PER_MINUTE: '3',
      },
      port,
    );
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 5; i++) statuses.push((await fetch(`${limited.baseUrl}/auth/login`, { redirect: 'manual' })).status);
      expect(statuses).toContain(302);
      expect(statuses[statuses.length - 1]).toBe(429);
    } finally {
      await limited.stop();
    }
  });
});
