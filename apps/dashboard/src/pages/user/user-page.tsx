import { useQuery } from '@tanstack/react-query';
import { type FormEvent, useEffect, useState } from 'react';
import { api, ApiError } from '../../api/client';
import type { PredictionExplanation } from '../../api/types';
import { DataTable } from '../../components/data-table';
import { count, percent, when } from '../../components/format';
import { Empty, ErrorState, Loading } from '../../components/states';
import { href } from '../../routes';

export function UserPage({ userId }: { userId?: string }) {
  const [typed, setTyped] = useState(userId ?? '');
  // Arriving from a link (or going back) shows the user displayed below in the box.
  useEffect(() => setTyped(userId ?? ''), [userId]);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (typed.trim() !== '') window.location.hash = href({ page: 'user', userId: typed.trim() });
  };
  return (
    <>
      <h1>User lookup</h1>
      <form className="inline-form" onSubmit={submit} role="search">
        <label htmlFor="user-id">User id</label>
        <input id="user-id" value={typed} onChange={(e) => setTyped(e.target.value)} placeholder="the userId your app sends" required />
        <button type="submit">Look up</button>
      </form>
      {userId ? <UserDetails key={userId} userId={userId} /> : <p className="muted">Type the id your app sends as userId to see the user's predictions now, their sessions and latest events.</p>}
    </>
  );
}

/** Features shown on each side of a score. */
const REASONS_SHOWN = 3;

/** The features that moved the score (the likelihood of the model's second label) most, up and down. */
function Reasons({ explanation }: { explanation: PredictionExplanation }) {
  const features = explanation.contributions.filter((c) => c.feature !== 'other');
  const side = (sign: 1 | -1) =>
    features
      .filter((c) => sign * c.contribution > 0)
      .slice(0, REASONS_SHOWN)
      .map((c) => c.label)
      .join('; ');
  const raised = side(1);
  const lowered = side(-1);
  return (
    <p className="reasons muted">
      {raised && <>Raised by {raised}. </>}
      {lowered && <>Lowered by {lowered}.</>}
    </p>
  );
}

function UserDetails({ userId }: { userId: string }) {
  const predictions = useQuery({ queryKey: ['predict', userId], queryFn: () => api.predictions.get({ query: { userId, explain: 'true' } }) });
  // Asked once the user is known to exist: an unknown id costs one request, not three.
  const known = predictions.isSuccess;
  const lookupFailed = predictions.isError && <p className="muted">Not loaded: looking the user up failed (see above).</p>;
  const sessions = useQuery({ queryKey: ['sessions', userId], queryFn: () => api.users.sessions({ query: { userId } }), enabled: known });
  const events = useQuery({ queryKey: ['user-events', userId], queryFn: () => api.users.events({ query: { userId, limit: 50 } }), enabled: known });
  if (predictions.isError && predictions.error instanceof ApiError && predictions.error.code === 'not_found') {
    return (
      <Empty title="No such user">
        <p>This organization has received no event for “{userId}”. Ids are case-sensitive; check the id your app sends.</p>
      </Empty>
    );
  }
  return (
    <>
      <section className="panel" aria-labelledby="predictions-heading">
        <h2 id="predictions-heading">
          Predictions now for <code>{userId}</code>
        </h2>
        {predictions.isPending && <Loading what="predictions" />}
        {predictions.isError && <ErrorState error={predictions.error} retry={() => void predictions.refetch()} />}
        {predictions.data?.predictions.length === 0 && <p>No model serves predictions yet.</p>}
        {predictions.data && predictions.data.predictions.length > 0 && (
          <ul className="predictions">
            {predictions.data.predictions.map((p) => (
              <li key={p.modelId}>
                <a href={href({ page: 'model', modelId: p.modelId })}>{p.model}</a>: <strong>{p.label}</strong> ({percent(p.confidence)} confident, v{p.version})
                {p.explanation && <Reasons explanation={p.explanation} />}
              </li>
            ))}
          </ul>
        )}
      </section>
      <div className="two-columns">
        <section className="panel" aria-labelledby="sessions-heading">
          <h2 id="sessions-heading">Sessions</h2>
          {lookupFailed}
          {known && sessions.isPending && <Loading what="sessions" />}
          {sessions.isError && <ErrorState error={sessions.error} />}
          {sessions.data && (
            <DataTable label="Sessions table" name={"The user's latest sessions, newest first"} columns={['Started', 'Minutes', 'Events']}>
              {[...sessions.data.sessions].reverse().slice(0, 20).map((s) => (
                <tr key={s.sessionId}>
                  <td>{when(s.startedAt)}</td>
                  <td>{(s.durationMs / 60_000).toFixed(1)}</td>
                  <td>{count(s.eventCount)}</td>
                </tr>
              ))}
            </DataTable>
          )}
        </section>
        <section className="panel" aria-labelledby="events-heading">
          <h2 id="events-heading">Latest events</h2>
          {lookupFailed}
          {known && events.isPending && <Loading what="events" />}
          {events.isError && <ErrorState error={events.error} />}
          {events.data && (
            <DataTable label="Latest events table" name={"The user's latest events, newest first"} columns={['When', 'Event']}>
              {events.data.events.map((e, k) => (
                <tr key={`${e.timestamp}-${k}`}>
                  <td>{when(e.timestamp)}</td>
                  <td>{e.event}</td>
                </tr>
              ))}
            </DataTable>
          )}
        </section>
      </div>
    </>
  );
}
