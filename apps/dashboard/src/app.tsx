import { useQueryClient } from '@tanstack/react-query';
import { useCallback, useEffect, useState } from 'react';
import { api, whenTokenRefused } from './api/client';
import type { CurrentToken } from './api/types';
import { AccessContext } from './auth/access';
import { forgetToken, storedToken } from './auth/session';
import { AuditPage } from './pages/audit/audit-page';
import { InstallPage } from './pages/install/install-page';
import { LivePage } from './pages/live/live-page';
import { ModelPage } from './pages/model/model-page';
import { ModelsPage } from './pages/models/models-page';
import { MonitoringPage } from './pages/monitoring/monitoring-page';
import { OverviewPage } from './pages/overview/overview-page';
import { PrivacyPage } from './pages/privacy/privacy-page';
import { SettingsPage } from './pages/settings/settings-page';
import { SignInPage } from './pages/sign-in/sign-in-page';
import { TokensPage } from './pages/tokens/tokens-page';
import { UserPage } from './pages/user/user-page';
import { WebhooksPage } from './pages/webhooks/webhooks-page';
import { href, type Route, useRoute } from './routes';

const NAVIGATION: Array<{ route: Route; label: string }> = [
  { route: { page: 'overview' }, label: 'Overview' },
  { route: { page: 'models' }, label: 'Models' },
  { route: { page: 'monitoring' }, label: 'Monitoring' },
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
  const [token, setToken] = useState<CurrentToken | null>(null);
  const [checking, setChecking] = useState(storedToken() !== null);
  const [notice, setNotice] = useState<string | null>(null);

  const signOut = useCallback(
    (message: string | null) => {
      forgetToken();
      queries.clear();
      setToken(null);
      setNotice(message);
    },
    [queries],
  );

  useEffect(() => {
    whenTokenRefused((message) => signOut(message));
    if (storedToken() === null) return;
    api
      .currentToken()
      .then(setToken, () => signOut('Your session ended: the token expired or was revoked. Sign in again with a valid token.'))
      .finally(() => setChecking(false));
  }, [signOut]);

  if (checking) return <p className="state loading">Checking your token…</p>;
  if (!token) return <SignInPage notice={notice} onSignedIn={(signedIn) => { setNotice(null); setToken(signedIn); }} />;
  return (
    <AccessContext.Provider value={token}>
      <Shell token={token} onSignOut={() => signOut('You signed out. The token was removed from this tab.')} />
    </AccessContext.Provider>
  );
}

function Shell({ token, onSignOut }: { token: CurrentToken; onSignOut: () => void }) {
  const route = useRoute();
  const current = route.page === 'model' ? 'models' : route.page;
  return (
    <>
      <a className="skip" href="#main">
        Skip to content
      </a>
      <header className="top">
        <span className="brand">Foresight</span>
        <nav aria-label="Main">
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
        <span className="who">
          {token.environment} · {token.scopes.includes('admin') ? 'admin' : 'read only'}
        </span>
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
