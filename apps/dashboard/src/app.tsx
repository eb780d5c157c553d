import { useQueryClient } from '@tanstack/react-query';
import { useCallback, useEffect, useState } from 'react';
import { api, whenTokenRefused } from './api/client';
import type { CurrentToken, SignInState } from './api/types';
import { type Access, AccessContext } from './auth/access';
import { forgetToken, keepCsrfToken, storedToken } from './auth/session';
import { AudiencesPage } from './pages/audiences/audiences-page';
import { AuditPage } from './pages/audit/audit-page';
import { InstallPage } from './pages/install/install-page';
import { LivePage } from './pages/live/live-page';
import { ModelPage } from './pages/model/model-page';
import { ModelsPage } from './pages/models/models-page';
import { MonitoringPage } from './pages/monitoring/monitoring-page';
import { OverviewPage } from './pages/overview/overview-page';
import { PrivacyPage } from './pages/privacy/privacy-page';
import { SettingsPage } from './pages/settings/settings-page';
import { SignInPage, type SignInWays } from './pages/sign-in/sign-in-page';
import { TokensPage } from './pages/tokens/tokens-page';
import { UserPage } from './pages/user/user-page';
import { WebhooksPage } from './pages/webhooks/webhooks-page';
import { href, type Route, useRoute } from './routes';

const NAVIGATION: Array<{ route: Route; label: string }> = [
  { route: { page: 'overview' }, label: 'Overview' },
  { route: { page: 'models' }, label: 'Models' },
  { route: { page: 'monitoring' }, label: 'Monitoring' },
  { route: { page: 'audiences' }, label: 'Audiences' },
  { route: { page: 'user' }, label: 'User lookup' },
  { route: { page: 'live' }, label: 'Live events' },
  { route: { page: 'install' }, label: 'Install' },
  { route: { page: 'tokens' }, label: 'Tokens' },
  { route: { page: 'webhooks' }, label: 'Webhooks' },
  { route: { page: 'privacy' }, label: 'Privacy' },
  { route: { page: 'settings' }, label: 'Settings' },
  { route: { page: 'audit' }, label: 'Audit log' },
];

export function App() {
  const queries = useQueryClient();
  const [access, setAccess] = useState<Access | null>(null);
  const [ways, setWays] = useState<SignInWays>({ token: true, singleSignOn: false });
  const [checking, setChecking] = useState(true);
  const [notice, setNotice] = useState<string | null>(null);

  const signOut = useCallback(
    (message: string | null) => {
      forgetToken();
      keepCsrfToken(null);
      queries.clear();
      setAccess(null);
      setNotice(message);
    },
    [queries],
  );

  useEffect(() => {
    whenTokenRefused((message) => signOut(message));
    void (async () => {
      try {
        const state = await api.auth.state();
        setWays({ token: state.tokenSignIn, singleSignOn: state.singleSignOn });
        if (state.session) {
          keepCsrfToken(state.session.csrfToken);
          setAccess(personAccess(state.session));
        } else if (state.tokenSignIn && storedToken() !== null) {
          setAccess(tokenAccess(await api.tokens.current()));
        }
      } catch {
        signOut('Your session ended: the token expired or was revoked. Sign in again with a valid token.');
      } finally {
        setChecking(false);
      }
    })();
  }, [signOut]);

  const signOutEverywhere = useCallback(async () => {
    if (!access?.person) return signOut('You signed out. The token was removed from this tab.');
    const { redirect } = await api.auth.signOut().catch(() => ({ redirect: null }));
    signOut('You signed out.');
    // RP-initiated logout: the provider ends its own session too, then sends the browser back here.
    if (redirect) window.location.assign(redirect);
  }, [access, signOut]);

  if (checking) return <p className="state loading">Checking your sign-in…</p>;
  if (!access) return <SignInPage notice={notice} ways={ways} onSignedIn={(token) => { setNotice(null); setAccess(tokenAccess(token)); }} />;
  return (
    <AccessContext.Provider value={access}>
      <Shell access={access} onSignOut={() => void signOutEverywhere()} />
    </AccessContext.Provider>
  );
}

function tokenAccess(token: CurrentToken): Access {
  const scopes = token.scopes.includes('admin') ? [...token.scopes, 'manage'] : token.scopes;
  return { scopes, person: false, tokenId: token.tokenId, label: `${token.environment} · ${token.scopes.includes('admin') ? 'admin' : 'read only'}` };
}

function personAccess(session: NonNullable<SignInState['session']>): Access {
  const who = session.person.email ?? session.person.name ?? session.person.subject;
  return { scopes: session.scopes, person: true, tokenId: null, label: `${who} · ${session.role}` };
}

function Shell({ access, onSignOut }: { access: Access; onSignOut: () => void }) {
  const route = useRoute();
  const current = route.page === 'model' ? 'models' : route.page;
  // On narrow screens the links fold behind a menu button; choosing a page folds them again.
  const [menuOpen, setMenuOpen] = useState(false);
  useEffect(() => setMenuOpen(false), [route]);
  return (
    <>
      <a className="skip" href="#main">
        Skip to content
      </a>
      <header className="top">
        <span className="brand">Foresight</span>
        <button type="button" className="menu-button secondary" aria-expanded={menuOpen} aria-controls="main-navigation" onClick={() => setMenuOpen((open) => !open)}>
          Menu
        </button>
        <nav aria-label="Main" id="main-navigation" className={menuOpen ? 'open' : undefined}>
          <ul>
            {NAVIGATION.map((item) => (
              <li key={item.label}>
                <a href={href(item.route)} aria-current={item.route.page === current ? 'page' : undefined}>
                  {item.label}
                </a>
              </li>
            ))}
          </ul>
        </nav>
        <span className="who">{access.label}</span>
        <button type="button" className="secondary" onClick={onSignOut}>
          Sign out
        </button>
      </header>
      <main id="main" tabIndex={-1}>
        <Page route={route} />
      </main>
    </>
  );
}

function Page({ route }: { route: Route }) {
  switch (route.page) {
    case 'overview':
      return <OverviewPage />;
    case 'models':
      return <ModelsPage />;
    case 'model':
      return <ModelPage modelId={route.modelId} />;
    case 'monitoring':
      return <MonitoringPage modelId={route.modelId} />;
    case 'user':
      return <UserPage userId={route.userId} />;
    case 'live':
      return <LivePage />;
    case 'tokens':
      return <TokensPage />;
    case 'webhooks':
      return <WebhooksPage />;
    case 'audiences':
      // Keyed by the explorer's choice, so following another of its links starts the form afresh.
      return <AudiencesPage key={`${route.modelId}/${route.cutoff}`} from={route.modelId ? { modelId: route.modelId, cutoff: route.cutoff } : undefined} />;
    case 'privacy':
      return <PrivacyPage />;
    case 'settings':
      return <SettingsPage />;
    case 'audit':
      return <AuditPage />;
    case 'install':
      return <InstallPage />;
  }
}
