import { randomBytes } from 'node:crypto';
import type { BrowserContext, Page } from 'playwright-core';
import { launchChromium } from '../support/chromium';
import { screenshot } from '../support/dashboard-browser';
import { eventually } from '../support/eventually';
import { request } from '../support/http';
import { type RunningOpenIdProvider, startOpenIdProvider } from '../support/openid-provider';
import { freePort } from '../support/ports';
import { type RunningProcess, startApi } from '../support/processes';
import { type OrganizationWithToken, TestSuite } from '../support/suite';

jest.setTimeout(180_000);

const PEOPLE = {
  vic: { email: 'vic@example.com', name: 'Vic Viewer', groups: ['fs-viewers'] },
  eve: { email: 'eve@example.com', name: 'Eve Editor', groups: ['fs-editors'] },
  ada: { email: 'ada@example.com', name: 'Ada Admin', groups: ['fs-admins', 'fs-viewers'] },
  dan: { email: 'dan@example.com', name: 'Dan Demoted', groups: ['fs-admins'] },
  rex: { email: 'rex@example.com', name: 'Rex Removed', groups: ['fs-editors'] },
  olga: { email: 'olga@example.com', name: 'Olga Outsider', groups: ['contractors'] },
  gus: { email: 'gus@example.com', name: 'Gus Guest', groups: ['fs-guests'] },
};
type Account = keyof typeof PEOPLE;

const GRANTS = [
  { group: 'fs-viewers', role: 'viewer' },
  { group: 'fs-editors', role: 'editor' },
  { group: 'fs-admins', role: 'admin' },
  { group: 'fs-guests', role: 'viewer' },
];

interface Answer<T = Record<string, unknown>> {
  status: number;
  body: T;
}

/** A person signed in to the dashboard in their own Chromium profile. */
interface SignedIn {
  page: Page;
  browser: BrowserContext;
  close: () => Promise<void>;
  /** Calls the API from the dashboard's page as the dashboard does: the session cookie and its CSRF token. */
  call<T = Record<string, unknown>>(path: string, method?: string, body?: unknown): Promise<Answer<T>>;
  /** The session cookie's name and value, as the browser holds it. */
  sessionCookie(): Promise<string>;
}

/**
 * Single sign-on for the dashboard (issue 44) with a real OpenID provider (oidc-provider, its own
 * port and signing key), the real API process and Chromium: people sign in through the provider's
 * login form, act within their role, are refused beyond it, sign out, and lose access when the
 * provider removes or demotes them (OIDC_REFRESH_INTERVAL is short here).
 */
describe('single sign-on in Chromium', () => {
  let suite: TestSuite;
  let org: OrganizationWithToken;
  let provider: RunningOpenIdProvider;
  let api: RunningProcess;
  const open: SignedIn[] = [];
  let editor: SignedIn;
  let admin: SignedIn;
  const sessionsOf = async (subject: string) => (await suite.sql<{ n: string }>('SELECT count(*) AS n FROM dashboard_sessions WHERE subject = $1', [subject]))[0].n;

  beforeAll(async () => {
    suite = await TestSuite.create('sso');
    org = await suite.createOrganization('sso', ['--rate-limit', '100000', '--burst', '200000']);
    const port = await freePort();
    const origin = `http://127.0.0.1:${port}`;
    const clientSecret = randomBytes(32).toString('hex');
    provider = await startOpenIdProvider({
      clientId: 'foresight-dashboard',
      clientSecret,
      redirectUrl: `${origin}/auth/callback`,
      postLogoutRedirectUrl: `${origin}/dashboard/`,
      accounts: PEOPLE,
    });
    api = await startApi(
      {
        ...suite.env,
        OIDC_ISSUER: provider.issuer,
        OIDC_CLIENT_ID: 'foresight-dashboard',
        OIDC_CLIENT_SECRET: clientSecret,
        OIDC_REDIRECT_URL: `${origin}/auth/callback`,
        OIDC_SCOPES: 'openid profile email groups',
        OIDC_REFRESH_INTERVAL: '1s',
        DASHBOARD_TOKEN_SIGN_IN: 'false',
      },
      port,
    );
    // An admin grants the groups their roles (CONTRACT.md "Dashboard"), as data, through the API.
    expect((await putGrants(GRANTS)).status).toBe(200);
  });

  afterAll(async () => {
    for (const person of open) await person.close();
    await api?.stop();
    await provider?.stop();
    await suite?.destroy();
  });

  const putGrants = (grants: ReadonlyArray<{ group: string; role: string }>) =>
    request(`${api.baseUrl}/v1/organization/sso-grants`, { token: org.token.secret, method: 'PUT', body: grants });

  async function signInAs(account: Account): Promise<SignedIn> {
    const { browser, close } = await launchChromium();
    const page = await browser.newPage();
    const person: SignedIn = {
      page,
      browser,
      close,
      call: (path, method = 'GET', body) =>
        page.evaluate(
          async ({ path, method, body }) => {
            const state = (await (await fetch('/auth/session')).json()) as { session: { csrfToken: string } | null };
            const headers: Record<string, string> = { 'x-foresight-csrf': state.session?.csrfToken ?? '' };
            if (body !== undefined) headers['content-type'] = 'application/json';
            const response = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
            return { status: response.status, body: (await response.json()) as never };
          },
          { path, method, body },
        ),
      sessionCookie: async () => {
        const cookie = (await browser.cookies(api.baseUrl)).find((c) => c.name === 'foresight-session');
        if (!cookie) throw new Error('no session cookie');
        return `${cookie.name}=${cookie.value}`;
      },
    };
    open.push(person);
    await page.goto(`${api.baseUrl}/dashboard/`);
    await page.getByRole('link', { name: 'Sign in with your organization account' }).click();
    // The provider's own login form, on its own origin.
    await page.locator('input[name=login]').fill(account);
    await page.locator('input[name=password]').fill('any password');
    await page.getByRole('button', { name: 'Sign-in' }).click();
    await page.getByRole('button', { name: 'Continue' }).click();
    return person;
  }

  it('a viewer reads and is refused beyond read, exactly as a read token is', async () => {
    const vic = await signInAs('vic');
    await vic.page.getByText('vic@example.com · viewer').waitFor();
    await vic.page.getByRole('heading', { name: 'Overview' }).waitFor();
    await screenshot(vic.page, 'sso-viewer');
    expect((await vic.call('/v1/models')).status).toBe(200);

    const create = await vic.call('/v1/models', 'POST', { name: 'churn_by_viewer', targetEvent: 'checkout' });
    expect(create).toEqual({ status: 403, body: { error: 'insufficient_scope', message: expect.stringContaining('editor or admin role') } });
    expect((await vic.call('/v1/tokens')).body).toMatchObject({ error: 'insufficient_scope' });
    expect(await suite.sql("SELECT id FROM models WHERE name = 'churn_by_viewer'")).toEqual([]);
  });

  it('an editor manages models but not tokens, privacy or the audit log', async () => {
    const eve = (editor = await signInAs('eve'));
    await eve.page.getByText('eve@example.com · editor').waitFor();
    expect(await eve.call('/v1/models', 'POST', { name: 'churn_by_editor', targetEvent: 'checkout' })).toMatchObject({ status: 200, body: { name: 'churn_by_editor' } });
    for (const path of ['/v1/tokens', '/v1/audit', '/v1/organization', '/v1/users/erasures']) {
      expect({ path, ...(await eve.call(path)) }).toEqual({ path, status: 403, body: { error: 'insufficient_scope', message: expect.any(String) } });
    }
  });

  it('the session cookie works on the dashboard own calls only: never without its CSRF token, never from another origin', async () => {
    const eve = editor;
    const cookie = await eve.sessionCookie();
    const csrf = (await eve.call<{ session: { csrfToken: string } }>('/auth/session')).body.session.csrfToken;
    const create = (name: string, headers: Record<string, string>) =>
      request(`${api.baseUrl}/v1/models`, { method: 'POST', body: { name, targetEvent: 'checkout' }, headers: { cookie, ...headers } });

    const refusals = {
      withoutCsrf: await create('csrf_missing', {}),
      wrongCsrf: await create('csrf_wrong', { 'x-foresight-csrf': csrf.replace(/.$/, (c) => (c === 'A' ? 'B' : 'A')) }),
      otherOrigin: await create('other_origin', { 'x-foresight-csrf': csrf, origin: 'https://evil.example' }),
      crossSite: await create('cross_site', { 'x-foresight-csrf': csrf, 'sec-fetch-site': 'cross-site' }),
    };
    for (const [what, answer] of Object.entries(refusals)) expect({ what, status: answer.status, error: answer.body.error }).toEqual({ what, status: 401, error: 'invalid_token' });
    expect(await suite.sql("SELECT name FROM models WHERE name IN ('csrf_missing', 'csrf_wrong', 'other_origin', 'cross_site')")).toEqual([]);
    // A page of another origin cannot make the browser use the cookie either (the CSRF header needs a CORS preflight this API never grants).
    const fromElsewhere = await eve.page.context().newPage();
    await fromElsewhere.goto(`${provider.issuer}/.well-known/openid-configuration`);
    const crossOrigin = await fromElsewhere.evaluate(async (url) => {
      try {
        const response = await fetch(url, { method: 'POST', credentials: 'include', headers: { 'x-foresight-csrf': 'guess', 'content-type': 'application/json' }, body: '{"name":"from_elsewhere","targetEvent":"checkout"}' });
        return response.status;
      } catch {
        return 'blocked';
      }
    }, `${api.baseUrl}/v1/models`);
    expect(crossOrigin).toBe('blocked');
    expect(await suite.sql("SELECT name FROM models WHERE name = 'from_elsewhere'")).toEqual([]);
    // The same session with its token passes: the refusals above were the checks, not a broken session.
    expect((await create('with_csrf', { 'x-foresight-csrf': csrf, 'sec-fetch-site': 'same-origin' })).status).toBe(200);
  });

  it('an admin manages tokens, and the audit log names the person who acted', async () => {
    const ada = (admin = await signInAs('ada'));
    await ada.page.getByText('ada@example.com · admin').waitFor();
    expect((await ada.call('/v1/tokens')).status).toBe(200);
    const audit = await ada.call<{ entries: Array<Record<string, unknown>> }>('/v1/audit?action=model.create');
    expect(audit.body.entries).toContainEqual(
      expect.objectContaining({ action: 'model.create', actorTokenId: null, actorPerson: { subject: 'eve', email: 'eve@example.com', name: 'Eve Editor' } }),
    );
    // The dashboard's audit page names the person too.
    await ada.page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Audit log' }).click();
    await ada.page.getByRole('cell', { name: 'Eve Editor <eve@example.com>' }).first().waitFor();
    await screenshot(ada.page, 'sso-audit-people');
    // A token's entries still name the token.
    await request(`${api.baseUrl}/v1/models`, { token: org.token.secret, method: 'POST', body: { name: 'churn_by_token', targetEvent: 'checkout' } });
    const byToken = await ada.call<{ entries: Array<Record<string, unknown>> }>('/v1/audit?action=model.create');
    expect(byToken.body.entries[0]).toMatchObject({ actorTokenId: org.token.id, actorPerson: null });
  });

  it('signing out ends the session here and at the provider', async () => {
    const ada = admin;
    const cookie = await ada.sessionCookie();
    expect(await sessionsOf('ada')).toBe('1');
    await ada.page.getByRole('button', { name: 'Sign out' }).click();
    // RP-initiated logout: the provider asks, then sends the browser back to the dashboard.
    await ada.page.getByRole('button', { name: 'Yes, sign me out' }).click();
    await ada.page.getByRole('link', { name: 'Sign in with your organization account' }).waitFor();
    expect(new URL(ada.page.url()).origin).toBe(api.baseUrl);
    expect(await sessionsOf('ada')).toBe('0');
    const replayed = await request(`${api.baseUrl}/v1/tokens`, { headers: { cookie, 'x-foresight-csrf': 'anything' } });
    expect(replayed.status).toBe(401);
  });

  it('a person whose group is removed at the provider loses access at the next refresh', async () => {
    const eve = editor;
    expect((await eve.call('/v1/models')).status).toBe(200);
    expect(await sessionsOf('eve')).toBe('1');
    await provider.setGroups('eve', []);
    await eventually('the session to end', async () => ((await eve.call('/v1/models')).status === 401 ? true : undefined));
    expect(await sessionsOf('eve')).toBe('0');
  });

  it('a person demoted at the provider keeps only the new role', async () => {
    const dan = await signInAs('dan');
    await dan.page.getByText('dan@example.com · admin').waitFor();
    expect((await dan.call('/v1/tokens')).status).toBe(200);
    await provider.setGroups('dan', ['fs-viewers']);
    await eventually('the role to drop', async () => ((await dan.call('/v1/tokens')).status === 403 ? true : undefined));
    expect((await dan.call('/v1/models')).status).toBe(200);
  });

  it('a person the provider removes is refused once the provider refuses the refresh', async () => {
    const rex = await signInAs('rex');
    await rex.page.getByText('rex@example.com · editor').waitFor();
    expect((await rex.call('/v1/models')).status).toBe(200);
    await provider.remove('rex');
    await eventually('the session to end', async () => ((await rex.call('/v1/models')).status === 401 ? true : undefined));
    expect(await sessionsOf('rex')).toBe('0');
    await rex.page.reload();
    await rex.page.getByRole('link', { name: 'Sign in with your organization account' }).waitFor();
    // DASHBOARD_TOKEN_SIGN_IN=false: single sign-on is the only way in.
    expect(await rex.page.getByLabel('Organization token').count()).toBe(0);
  });

  it('an admin reads the grants and revoking one ends the access it gave at the next refresh, on record in the audit log', async () => {
    const gus = await signInAs('gus');
    await gus.page.getByText('gus@example.com · viewer').waitFor();
    expect((await gus.call('/v1/models')).status).toBe(200);
    const read = await request(`${api.baseUrl}/v1/organization/sso-grants`, { token: org.token.secret });
    expect(read.body).toEqual({ organizationId: org.organization.id, grants: expect.arrayContaining(GRANTS) });

    const revoked = await putGrants(GRANTS.filter((grant) => grant.group !== 'fs-guests'));
    expect(revoked.body).toEqual({ organizationId: org.organization.id, grants: expect.not.arrayContaining([expect.objectContaining({ group: 'fs-guests' })]) });
    await eventually('the session to end', async () => ((await gus.call('/v1/models')).status === 401 ? true : undefined));
    expect(await sessionsOf('gus')).toBe('0');
    const audit = await request<{ entries: Array<Record<string, unknown>> }>(`${api.baseUrl}/v1/audit?action=organization.sso-grants`, { token: org.token.secret });
    expect(audit.body.entries[0]).toMatchObject({ action: 'organization.sso-grants', actorTokenId: org.token.id, target: org.organization.id });
  });

  it('grants are refused unless each names a printable group once, with a known role', async () => {
    for (const grants of [[{ group: 'a\u0000b', role: 'viewer' }], [{ group: 'fs-viewers', role: 'owner' }], [GRANTS[0], GRANTS[0]], [{ group: '', role: 'viewer' }]]) {
      const refused = await putGrants(grants);
      expect({ grants, status: refused.status, error: refused.body.error }).toEqual({ grants, status: 400, error: 'invalid_request' });
    }
    expect((await request(`${api.baseUrl}/v1/organization/sso-grants`, { token: org.token.secret })).body.grants).toHaveLength(GRANTS.length - 1);
  });

  it('a person whose groups hold no grant is refused with a page, and nothing is created', async () => {
    const olga = await signInAs('olga');
    await olga.page.getByRole('heading', { name: 'Sign-in refused' }).waitFor();
    await olga.page.getByText('None of your groups is granted a role').waitFor();
    await screenshot(olga.page, 'sso-refused');
    await olga.page.getByRole('link', { name: 'Back to the dashboard' }).click();
    await olga.page.getByRole('link', { name: 'Sign in with your organization account' }).waitFor();
    expect(await sessionsOf('olga')).toBe('0');
  });
});
