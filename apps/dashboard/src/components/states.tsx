import type { ReactNode } from 'react';
import { ApiError } from '../api/client';

export function Loading({ what }: { what: string }) {
  return (
    <p className="state loading" role="status" aria-live="polite">
      Loading {what}…
    </p>
  );
}

/** An error in plain words, with what to do about it. */
export function ErrorState({ error, retry }: { error: unknown; retry?: () => void }) {
  const message = error instanceof ApiError ? explain(error) : 'Something went wrong in the dashboard. Reload the page; if it persists, check the service logs.';
  const correlationId = error instanceof ApiError ? error.correlationId : null;
  return (
    <div className="state error" role="alert">
      <p>{message}</p>
      {correlationId && (
        <p>
          Reference for whoever runs Foresight: <code>{correlationId}</code> (the server logged the failure under this id).
        </p>
      )}
      {retry && (
        <button type="button" onClick={retry}>
          Try again
        </button>
      )}
    </div>
  );
}

function explain(error: ApiError): string {
  switch (error.code) {
    case 'insufficient_scope':
      return 'This token may look but not act: ask an administrator for a token with the admin scope.';
    case 'not_found':
      return `Not found: ${error.message}. It may have been deleted, or it belongs to another organization.`;
    case 'rate_limited':
      return 'Too many requests for this token right now; wait a few seconds and try again.';
    case 'unavailable':
      return 'The service cannot reach its database or Redis right now; try again shortly.';
    case 'internal_error':
      return 'Something went wrong on the server. Try again; if it persists, give the reference below to whoever runs Foresight.';
    default:
      return error.message;
  }
}

/** An empty state that teaches the next step. */
export function Empty({ title, children }: { title: string; children: ReactNode }) {
  return (
    <section className="state empty" aria-label={title}>
      <h3>{title}</h3>
      {children}
    </section>
  );
}

export function Badge({ tone, children }: { tone: 'good' | 'fair' | 'bad' | 'neutral'; children: ReactNode }) {
  return <span className={`badge ${tone}`}>{children}</span>;
}
