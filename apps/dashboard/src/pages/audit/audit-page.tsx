import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { api } from '../../api/client';
import type { AuditAction, AuditEntry } from '../../api/types';
import { useCanAct } from '../../auth/access';
import { DataTable } from '../../components/data-table';
import { when } from '../../components/format';
import { ErrorState, Loading } from '../../components/states';

// Keyed by the API's own action type (from its OpenAPI document): an action added there fails to compile here until listed.
const ACTION_OPTIONS: Record<AuditAction, true> = {
  'token.create': true,
  'token.revoke': true,
  'model.create': true,
  'model.retrain': true,
  'model.update': true,
  'model.promote': true,
  'model.delete': true,
  'model.score': true,
  'user.export': true,
  'user.delete': true,
  'user.unsuppress': true,
  'webhook.create': true,
  'webhook.delete': true,
  'audience.create': true,
  'audience.delete': true,
  'organization.create': true,
  'organization.update': true,
  'organization.sso-grants': true,
};
const ACTIONS = Object.keys(ACTION_OPTIONS) as AuditAction[];

/** A datetime-local value (read as UTC) as the API's instant, or undefined when empty. */
const instant = (value: string): string | undefined => (value === '' ? undefined : `${value}:00Z`);

/** Admin actions of the organization, newest first, filtered by action and time (admin). */
export function AuditPage() {
  const canAct = useCanAct();
  const [action, setAction] = useState<AuditAction | ''>('');
  const [since, setSince] = useState('');
  const [until, setUntil] = useState('');
  const filter = { action: action === '' ? undefined : action, since: instant(since), until: instant(until) };
  const entries = useQuery({ queryKey: ['audit', filter], queryFn: () => api.audit.list({ query: filter }), enabled: canAct });
  if (!canAct) {
    return (
      <>
        <h1>Audit log</h1>
        <p className="muted">The audit log needs a token with the admin scope.</p>
      </>
    );
  }
  return (
    <>
      <h1>Audit log</h1>
      <form className="inline-form" role="search" aria-label="Filter the audit log" onSubmit={(e) => e.preventDefault()}>
        <label htmlFor="audit-action">Action</label>
        <select id="audit-action" value={action} onChange={(e) => setAction(e.target.value as AuditAction | '')}>
          <option value="">every action</option>
          {ACTIONS.map((name) => (
            <option key={name}>{name}</option>
          ))}
        </select>
        <label htmlFor="audit-since">From (UTC)</label>
        <input id="audit-since" type="datetime-local" value={since} onChange={(e) => setSince(e.target.value)} />
        <label htmlFor="audit-until">Until (UTC)</label>
        <input id="audit-until" type="datetime-local" value={until} onChange={(e) => setUntil(e.target.value)} />
      </form>
      <section className="panel" aria-labelledby="audit-heading">
        <h2 id="audit-heading">Admin actions, newest first</h2>
        {entries.isPending && <Loading what="the audit log" />}
        {entries.isError && <ErrorState error={entries.error} />}
        {entries.data?.entries.length === 0 && <p className="muted">No admin action matches.</p>}
        {entries.data && entries.data.entries.length > 0 && (
          <DataTable label="Audit log entries" name="Audit log entries" columns={['When', 'Action', 'Target', 'By token']}>
            {entries.data.entries.map((entry) => (
              <tr key={entry.id}>
                <td>{when(entry.createdAt)}</td>
                <th scope="row">{entry.action}</th>
                <td>
                  <code>{entry.target ?? '—'}</code>
                </td>
                <td>{actorOf(entry)}</td>
              </tr>
            ))}
          </DataTable>
        )}
      </section>
    </>
  );
}

/** A token by its id, a person signed in through single sign-on by name and e-mail, or an operator at the CLI. */
function actorOf(entry: AuditEntry): string {
  if (entry.actorTokenId !== null) return entry.actorTokenId;
  const person = entry.actorPerson;
  if (person === null) return 'an operator (CLI)';
  return [person.name, person.email ? `<${person.email}>` : null].filter((part) => part !== null).join(' ') || person.subject;
}
