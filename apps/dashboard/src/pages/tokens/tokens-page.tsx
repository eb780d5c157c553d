import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { api } from '../../api/client';
import type { CreateToken, IssuedToken, Scope, TokenView } from '../../api/types';
import { useCanAct, useSignedInTokenId } from '../../auth/access';
import { ConfirmButton } from '../../components/confirm-button';
import { DataTable } from '../../components/data-table';
import { when } from '../../components/format';
import { SecretOnce } from '../../components/secret-once';
import { Badge, ErrorState, Loading } from '../../components/states';

const SCOPES: Scope[] = ['ingest', 'read', 'admin'];
const ENVIRONMENTS: Array<CreateToken['environment']> = ['prod', 'staging', 'dev'];
/** The longest name the API keeps for a token. */
const NAME_MAX_LENGTH = 100;

/** A token as listed, with the name people give it (null when none was given; absent from APIs before names). */
type NamedToken = TokenView & { name?: string | null };

/** The organization's tokens (admin): list without secrets, create (secret shown once), revoke with confirmation. */
export function TokensPage() {
  const canAct = useCanAct();
  const tokens = useQuery({ queryKey: ['tokens'], queryFn: () => api.tokens.list(), enabled: canAct });
  const [issued, setIssued] = useState<IssuedToken | null>(null);
  if (!canAct) {
    return (
      <>
        <h1>Tokens</h1>
        <p className="muted">Managing tokens needs a token with the admin scope.</p>
      </>
    );
  }
  return (
    <>
      <h1>Tokens</h1>
      {issued && <SecretOnce kind="token" label={`New ${issued.environment} token (${issued.scopes.join(', ')})`} secret={issued.token} onDone={() => setIssued(null)} />}
      <CreateTokenForm onIssued={setIssued} />
      <section className="panel" aria-labelledby="tokens-heading">
        <h2 id="tokens-heading">Tokens of this organization</h2>
        {tokens.isPending && <Loading what="tokens" />}
        {tokens.isError && <ErrorState error={tokens.error} retry={() => void tokens.refetch()} />}
        {tokens.data && <TokenTable tokens={tokens.data} />}
      </section>
    </>
  );
}

function CreateTokenForm({ onIssued }: { onIssued: (issued: IssuedToken) => void }) {
  const queries = useQueryClient();
  const [name, setName] = useState('');
  const [environment, setEnvironment] = useState<CreateToken['environment']>('prod');
  const [scopes, setScopes] = useState<Scope[]>(['read']);
  const [expiresInDays, setExpiresInDays] = useState('');
  const create = useMutation({
    mutationFn: () => {
      const body: CreateToken & { name?: string } = { environment, scopes, expiresInDays: expiresInDays === '' ? undefined : Number(expiresInDays), name: name.trim() || undefined };
      return api.tokens.create({ body });
    },
    onSuccess: (issued) => {
      onIssued(issued);
      setName('');
      void queries.invalidateQueries({ queryKey: ['tokens'] });
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate();
  };
  const toggle = (scope: Scope) => setScopes((current) => (current.includes(scope) ? current.filter((s) => s !== scope) : [...current, scope]));
  return (
    <section className="panel" aria-labelledby="create-token-heading">
      <h2 id="create-token-heading">Create a token</h2>
      <form className="stacked-form" onSubmit={submit}>
        <label htmlFor="token-name">Name (what it is for, e.g. &quot;checkout backend&quot;; optional)</label>
        <input id="token-name" value={name} maxLength={NAME_MAX_LENGTH} onChange={(e) => setName(e.target.value)} />
        <label htmlFor="token-environment">Environment</label>
        <select id="token-environment" value={environment} onChange={(e) => setEnvironment(e.target.value as CreateToken['environment'])}>
          {ENVIRONMENTS.map((env) => (
            <option key={env}>{env}</option>
          ))}
        </select>
        <fieldset>
          <legend>Scopes</legend>
          {SCOPES.map((scope) => (
            <label key={scope} className="check">
              <input type="checkbox" checked={scopes.includes(scope)} onChange={() => toggle(scope)} /> {scope}
            </label>
          ))}
        </fieldset>
        <label htmlFor="token-expiry">Expires after (days; empty for never)</label>
        <input id="token-expiry" type="number" min={1} max={3650} value={expiresInDays} onChange={(e) => setExpiresInDays(e.target.value)} />
        <button type="submit" disabled={create.isPending || scopes.length === 0}>
          Create token
        </button>
      </form>
      {create.isError && <ErrorState error={create.error} />}
    </section>
  );
}

function TokenTable({ tokens }: { tokens: NamedToken[] }) {
  const signedInWith = useSignedInTokenId();
  const [showRevoked, setShowRevoked] = useState(false);
  const revoked = tokens.filter((token) => token.revokedAt !== null).length;
  const shown = showRevoked ? tokens : tokens.filter((token) => token.revokedAt === null);
  return (
    <>
      <div className="filters">
        <label className="check">
          <input type="checkbox" checked={showRevoked} onChange={(e) => setShowRevoked(e.target.checked)} /> Show revoked tokens ({revoked})
        </label>
      </div>
      {shown.length === 0 && <p className="muted">No token in use: every token is revoked.</p>}
      {shown.length > 0 && (
        <DataTable label="Tokens" name="Tokens, oldest first" columns={['Token', 'Environment', 'Scopes', 'Created', 'Last used', 'Expires', 'State']}>
          {shown.map((token) => (
            <tr key={token.id}>
              <th scope="row">
                {token.name ? <strong>{token.name}</strong> : <span className="muted">unnamed</span>}
                <br />
                <code>{token.id}</code> ends …{token.hint}
                {token.id === signedInWith && (
                  <>
                    <br />
                    <span className="yours">You are signed in with this token</span>
                  </>
                )}
              </th>
              <td>{token.environment}</td>
              <td>{token.scopes.join(', ')}</td>
              <td>{when(token.createdAt)}</td>
              <td>{token.lastUsedAt ? when(token.lastUsedAt) : 'never'}</td>
              <td>{token.expiresAt ? when(token.expiresAt) : 'never'}</td>
              <td>{token.revokedAt ? <Badge tone="bad">revoked {when(token.revokedAt)}</Badge> : <RevokeToken token={token} yours={token.id === signedInWith} />}</td>
            </tr>
          ))}
        </DataTable>
      )}
    </>
  );
}

function RevokeToken({ token, yours }: { token: NamedToken; yours: boolean }) {
  const queries = useQueryClient();
  const revoke = useMutation({ mutationFn: () => api.tokens.revoke({ path: { tokenId: token.id } }), onSuccess: () => queries.invalidateQueries({ queryKey: ['tokens'] }) });
  const what = `${token.name ? `“${token.name}” (${token.id})` : token.id} (…${token.hint})`;
  return (
    <>
      <ConfirmButton
        label={`Revoke ${token.id}`}
        question={
          yours ? (
            <>
              <strong>This is the token you are signed in with.</strong> Revoking {what} signs you out of this dashboard at once, and every other request with it is refused within a second. This cannot be undone.
            </>
          ) : (
            `Revoke ${what}? Every request with it is refused within a second, on every replica. This cannot be undone.`
          )
        }
        pending={revoke.isPending}
        onConfirm={() => revoke.mutate()}
      />
      {revoke.isError && <ErrorState error={revoke.error} />}
    </>
  );
}
