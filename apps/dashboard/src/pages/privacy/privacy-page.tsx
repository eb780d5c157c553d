import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { api } from '../../api/client';
import { useCanAct } from '../../auth/access';
import { DataTable } from '../../components/data-table';
import { when } from '../../components/format';
import { Badge, ErrorState, Loading } from '../../components/states';

/** A user's data rights (admin): export as a JSON file, erase with a typed confirmation, erasure records, unsuppress. */
export function PrivacyPage() {
  const canAct = useCanAct();
  if (!canAct) {
    return (
      <>
        <h1>Privacy</h1>
        <p className="muted">Exports and erasures need a token with the admin scope.</p>
      </>
    );
  }
  return (
    <>
      <h1>Privacy</h1>
      <UserRights />
      <Erasures />
    </>
  );
}

function UserRights() {
  const queries = useQueryClient();
  const [userId, setUserId] = useState('');
  const [typed, setTyped] = useState('');
  const [suppress, setSuppress] = useState(false);
  const exported = useMutation({ mutationFn: () => api.users.export({ query: { userId } }), onSuccess: (data) => download(`foresight-export-${data.userId}.json`, data) });
  const erase = useMutation({
    mutationFn: () => api.users.delete({ query: { userId, suppress: suppress ? 'true' : 'false' } }),
    onSuccess: () => {
      setTyped('');
      void queries.invalidateQueries({ queryKey: ['erasures'] });
    },
  });
  const unsuppress = useMutation({ mutationFn: () => api.users.unsuppress({ query: { userId } }) });
  const submitErase = (event: FormEvent) => {
    event.preventDefault();
    if (typed === userId) erase.mutate();
  };
  return (
    <section className="panel" aria-labelledby="user-rights-heading">
      <h2 id="user-rights-heading">A user's data</h2>
      <div className="stacked-form">
        <label htmlFor="privacy-user">User id</label>
        <input id="privacy-user" value={userId} onChange={(e) => setUserId(e.target.value)} placeholder="the userId your app sends" />
      </div>
      <div className="actions-row">
        <button type="button" onClick={() => exported.mutate()} disabled={userId === '' || exported.isPending}>
          Download export (JSON)
        </button>
        <button type="button" className="secondary" onClick={() => unsuppress.mutate()} disabled={userId === '' || unsuppress.isPending}>
          Accept their events again (unsuppress)
        </button>
      </div>
      {exported.isError && <ErrorState error={exported.error} />}
      {exported.isSuccess && <p role="status">Export of {exported.data.events.length} events downloaded.</p>}
      {unsuppress.isError && <ErrorState error={unsuppress.error} />}
      {unsuppress.isSuccess && <p role="status">{unsuppress.data.unsuppressed ? 'Their events are accepted again.' : 'This user was not suppressed.'}</p>}
      <form className="stacked-form confirm" onSubmit={submitErase} aria-label="Erase the user">
        <p>Erasing removes every event, prediction, session and cached feature of the user from every store. It cannot be undone.</p>
        <label htmlFor="erase-confirm">Type the user id again to confirm</label>
        <input id="erase-confirm" value={typed} onChange={(e) => setTyped(e.target.value)} autoComplete="off" />
        <label className="check">
          <input type="checkbox" checked={suppress} onChange={(e) => setSuppress(e.target.checked)} /> Also drop their future events (suppress)
        </label>
        <button type="submit" className="danger" disabled={userId === '' || typed !== userId || erase.isPending}>
          Erase this user
        </button>
      </form>
      {erase.isError && <ErrorState error={erase.error} />}
      {erase.isSuccess && <p role="status">Erased. The record below stays pending until the sweep confirms no store holds the user.</p>}
    </section>
  );
}

function Erasures() {
  const erasures = useQuery({ queryKey: ['erasures'], queryFn: () => api.users.erasures({ query: { limit: 50 } }), refetchInterval: 3_000 });
  return (
    <section className="panel" aria-labelledby="erasures-heading">
      <h2 id="erasures-heading">Erasure records</h2>
      {erasures.isPending && <Loading what="erasure records" />}
      {erasures.isError && <ErrorState error={erasures.error} />}
      {erasures.data?.erasures.length === 0 && <p className="muted">No erasure requested yet.</p>}
      {erasures.data && erasures.data.erasures.length > 0 && (
        <DataTable label="Erasure records" name="Erasure records, newest first" columns={['User (keyed hash)', 'Requested', 'State', 'Rows erased']}>
          {erasures.data.erasures.map((erasure) => (
            <tr key={erasure.id}>
              <th scope="row">
                <code>{erasure.userHash.slice(0, 16)}…</code>
              </th>
              <td>{when(erasure.requestedAt)}</td>
              <td>
                {erasure.status === 'confirmed' ? (
                  <Badge tone="good">confirmed {when(erasure.confirmedAt)}</Badge>
                ) : (
                  <Badge tone="fair">pending after {erasure.attempts} sweep(s)</Badge>
                )}
              </td>
              <td>{Object.entries(erasure.erased).map(([store, rows]) => `${store} ${rows}`).join(', ') || 'nothing'}</td>
            </tr>
          ))}
        </DataTable>
      )}
    </section>
  );
}

/** Saves a JSON value as a file through a temporary object URL (no server round trip, nothing in the address bar). */
function download(name: string, value: unknown): void {
  const link = document.createElement('a');
  link.href = URL.createObjectURL(new Blob([JSON.stringify(value, null, 2)], { type: 'application/json' }));
  link.download = name;
  link.click();
  setTimeout(() => URL.revokeObjectURL(link.href), 10_000);
}
