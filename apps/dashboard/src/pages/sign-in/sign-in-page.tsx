import { type FormEvent, useState } from 'react';
import { api, ApiError } from '../../api/client';
import type { CurrentToken } from '../../api/types';
import { storeToken } from '../../auth/session';

/** How this deployment lets people in: a pasted token, single sign-on, or both. */
export interface SignInWays {
  token: boolean;
  singleSignOn: boolean;
}

/** Single sign-on goes through the identity provider; a token is typed here and kept in this tab's sessionStorage only. */
export function SignInPage({ notice, ways, onSignedIn }: { notice: string | null; ways: SignInWays; onSignedIn: (token: CurrentToken) => void }) {
  const [secret, setSecret] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  async function signIn(event: FormEvent) {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const token = await api.tokenFor(secret.trim());
      if (!token.scopes.includes('read')) {
        setError('This token can only send events (ingest scope). Sign in with a token that has the read scope.');
        return;
      }
      storeToken(secret.trim());
      onSignedIn(token);
    } catch (failure) {
      setError(failure instanceof ApiError && failure.status === 401 ? 'This token is unknown, revoked or expired. Check it and try again.' : failure instanceof Error ? failure.message : 'Sign-in failed.');
    } finally {
      setBusy(false);
    }
  }

  return (
    <main className="sign-in" id="main">
      <h1>Sign in to Foresight</h1>
      {notice && (
        <p className="notice" role="status">
          {notice}
        </p>
      )}
      {ways.singleSignOn && (
        <p>
          <a className="button" href="/auth/login">
            Sign in with your organization account
          </a>
        </p>
      )}
      {ways.token && (
      <form onSubmit={(event) => void signIn(event)}>
        <label htmlFor="token">Organization token</label>
        <input
          id="token"
          name="token"
          type="password"
          autoComplete="off"
          spellCheck={false}
          placeholder="pat_prod_…"
          value={secret}
          onChange={(event) => setSecret(event.target.value)}
          aria-describedby="token-help"
          required
        />
        <p id="token-help" className="help">
          A token with the read scope shows everything; the admin scope also lets you create, retrain and promote models. It stays in this tab only and is forgotten when the tab closes.
        </p>
        {error && (
          <p className="state error" role="alert">
            {error}
          </p>
        )}
        <button type="submit" disabled={busy || secret.trim() === ''}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
      </form>
      )}
    </main>
  );
}
