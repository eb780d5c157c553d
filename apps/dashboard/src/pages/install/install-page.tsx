import { useMutation, useQuery } from '@tanstack/react-query';
import { api } from '../../api/client';
import { useCanAct } from '../../auth/access';
import { CopyButton } from '../../components/copy-button';
import { SecretOnce } from '../../components/secret-once';
import { ErrorState } from '../../components/states';
import { installSnippets, sdkTarball, type Snippet } from './install-snippets';

const PLACEHOLDER = 'pat_prod_…';

/** Snippets for every SDK, filled with this deployment's address and the SDK packages it serves; admins can create the ingest-only token they need. */
export function InstallPage() {
  const canAct = useCanAct();
  const create = useMutation({ mutationFn: () => api.tokens.create({ body: { environment: 'prod', scopes: ['ingest'] } }) });
  // The SDK packages are versioned with the service: the tarballs are named after the version it reports.
  const health = useQuery({ queryKey: ['health'], queryFn: () => api.health() });
  const version = health.data?.version ?? null;
  const origin = window.location.origin;
  const token = create.data?.token ?? PLACEHOLDER;
  return (
    <>
      <h1>Install an SDK</h1>
      <p>SDKs ship inside apps, so they get a token with the ingest scope only. Every snippet below sends to this deployment, {origin}.</p>
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
      {create.data && <SecretOnce kind="token" label="New ingest-only token" secret={create.data.token} onDone={() => undefined} />}
      {health.isError && <ErrorState error={health.error} />}
      {version !== null && installSnippets(origin, token, version).map((snippet) => <SnippetPanel key={snippet.sdk} snippet={snippet} version={version} />)}
    </>
  );
}

function SnippetPanel({ snippet, version }: { snippet: Snippet; version: string }) {
  return (
    <section className="panel" aria-label={`${snippet.platform}: ${snippet.sdk}`}>
      <h2>
        {snippet.platform}: {snippet.sdk}
      </h2>
      {snippet.install && (
        <>
          <Code text={snippet.install} what={`the install command of ${snippet.sdk}`} />
          <Served sdk={snippet.sdk} version={version} />
        </>
      )}
      <Code text={snippet.code} what={`the ${snippet.sdk} snippet`} />
      {snippet.note && <p className="help">{snippet.note}</p>}
    </section>
  );
}

function Code({ text, what }: { text: string; what: string }) {
  return (
    <div className="snippet">
      <pre>
        <code>{text}</code>
      </pre>
      <CopyButton text={text} label="Copy" className="copy secondary" />
      <span className="visually-hidden">copies {what}</span>
    </div>
  );
}

/** Whether this deployment really serves the package the command installs: a missing tarball is said, not discovered by npm. */
function Served({ sdk, version }: { sdk: string; version: string }) {
  const name = sdk === '@foresight/node' ? 'node' : 'react-native';
  const path = new URL(sdkTarball(window.location.origin, name, version)).pathname;
  const served = useQuery({ queryKey: ['serves', path], queryFn: () => api.serves(path) });
  if (served.data !== false) return null;
  return (
    <p className="notice">
      This deployment does not serve <code>{path}</code> yet: it is built by <code>npm run build</code> and served from the image&apos;s dist/sdk. Until then, install from a checkout of Foresight.
    </p>
  );
}
