import { useMutation } from '@tanstack/react-query';
import { api } from '../../api/client';
import { useCanAct } from '../../auth/access';
import { SecretOnce } from '../../components/secret-once';
import { ErrorState } from '../../components/states';
import { installSnippets } from './install-snippets';

const PLACEHOLDER = 'pat_prod_…';

/** Snippets for every SDK, filled with this deployment's address; admins can create the ingest-only token they need. */
export function InstallPage() {
  const canAct = useCanAct();
  const create = useMutation({ mutationFn: () => api.tokens.create({ body: { environment: 'prod', scopes: ['ingest'] } }) });
  const token = create.data?.token ?? PLACEHOLDER;
  return (
    <>
      <h1>Install an SDK</h1>
      <p>SDKs ship inside apps, so they get a token with the ingest scope only. Every snippet below sends to this deployment, {window.location.origin}.</p>
      {canAct ? (
        <div className="actions-row">
          <button type="button" onClick={() => create.mutate()} disabled={create.isPending || create.isSuccess}>
            Create an ingest-only token for these snippets
          </button>
        </div>
      ) : (
        <p className="muted">Ask an administrator for an ingest-only token, then replace {PLACEHOLDER} below with it.</p>
      )}
      {create.isError && <ErrorState error={create.error} />}
      {create.data && <SecretOnce label="New ingest-only token" secret={create.data.token} onDone={() => undefined} />}
      {installSnippets(window.location.origin, token).map((snippet) => (
        <section key={snippet.sdk} className="panel" aria-label={`${snippet.platform}: ${snippet.sdk}`}>
          <h2>
            {snippet.platform}: {snippet.sdk}
          </h2>
          <pre>
            <code>{snippet.code}</code>
          </pre>
        </section>
      ))}
    </>
  );
}
