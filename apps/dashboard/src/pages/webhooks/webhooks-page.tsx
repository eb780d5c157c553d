import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { api } from '../../api/client';
import type { CreatedWebhook, Webhook, WebhookDelivery, WebhookEventKind } from '../../api/types';
import { useCanAct } from '../../auth/access';
import { ConfirmButton } from '../../components/confirm-button';
import { DataTable } from '../../components/data-table';
import { when } from '../../components/format';
import { SecretOnce } from '../../components/secret-once';
import { Badge, ErrorState, Loading } from '../../components/states';

const KINDS: WebhookEventKind[] = ['prediction.updated', 'model.retrained', 'model.failed', 'drift.detected', 'audience.entered', 'audience.left'];

/** Webhook endpoints (admin): create (secret shown once), delete, test event, delivery log with retry. */
export function WebhooksPage() {
  const canAct = useCanAct('manage');
  const webhooks = useQuery({ queryKey: ['webhooks'], queryFn: () => api.webhooks.list(), enabled: canAct });
  const [created, setCreated] = useState<CreatedWebhook | null>(null);
  if (!canAct) {
    return (
      <>
        <h1>Webhooks</h1>
        <p className="muted">Managing webhooks needs a token with the admin scope.</p>
      </>
    );
  }
  return (
    <>
      <h1>Webhooks</h1>
      {created && <SecretOnce kind="signing-secret" label={`Signing secret of ${created.url}`} secret={created.secret} onDone={() => setCreated(null)} />}
      <CreateWebhookForm onCreated={setCreated} />
      {webhooks.isPending && <Loading what="webhooks" />}
      {webhooks.isError && <ErrorState error={webhooks.error} retry={() => void webhooks.refetch()} />}
      {webhooks.data?.length === 0 && <p>No endpoint yet: add one above to be told when predictions change, models retrain or drift.</p>}
      {webhooks.data?.map((webhook) => <WebhookPanel key={webhook.id} webhook={webhook} />)}
    </>
  );
}

function CreateWebhookForm({ onCreated }: { onCreated: (created: CreatedWebhook) => void }) {
  const queries = useQueryClient();
  const [url, setUrl] = useState('');
  const [events, setEvents] = useState<WebhookEventKind[]>(['model.retrained', 'model.failed']);
  const create = useMutation({
    mutationFn: () => api.webhooks.create({ body: { url: url.trim(), events } }),
    onSuccess: (result) => {
      onCreated(result);
      setUrl('');
      void queries.invalidateQueries({ queryKey: ['webhooks'] });
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate();
  };
  const toggle = (kind: WebhookEventKind) => setEvents((current) => (current.includes(kind) ? current.filter((k) => k !== kind) : [...current, kind]));
  return (
    <section className="panel" aria-labelledby="create-webhook-heading">
      <h2 id="create-webhook-heading">Add an endpoint</h2>
      <form className="stacked-form" onSubmit={submit}>
        <label htmlFor="webhook-url">Endpoint URL</label>
        <input id="webhook-url" type="url" required value={url} onChange={(e) => setUrl(e.target.value)} placeholder="https://example.com/foresight-hooks" />
        <fieldset>
          <legend>Event kinds</legend>
          {KINDS.map((kind) => (
            <label key={kind} className="check">
              <input type="checkbox" checked={events.includes(kind)} onChange={() => toggle(kind)} /> {kind}
            </label>
          ))}
        </fieldset>
        <button type="submit" disabled={create.isPending || events.length === 0}>
          Add endpoint
        </button>
      </form>
      {create.isError && <ErrorState error={create.error} />}
    </section>
  );
}

function WebhookPanel({ webhook }: { webhook: Webhook }) {
  const queries = useQueryClient();
  const deliveries = useQuery({ queryKey: ['deliveries', webhook.id], queryFn: () => api.webhooks.deliveries({ path: { webhookId: webhook.id } }), refetchInterval: 3_000 });
  const refreshDeliveries = () => queries.invalidateQueries({ queryKey: ['deliveries', webhook.id] });
  const test = useMutation({ mutationFn: () => api.webhooks.sendTest({ path: { webhookId: webhook.id } }), onSuccess: refreshDeliveries });
  const remove = useMutation({ mutationFn: () => api.webhooks.delete({ path: { webhookId: webhook.id } }), onSuccess: () => queries.invalidateQueries({ queryKey: ['webhooks'] }) });
  return (
    <section className="panel" aria-label={`Webhook ${webhook.url}`}>
      <div className="panel-head">
        <h2>
          <code>{webhook.url}</code>
        </h2>
        {webhook.enabled ? <Badge tone="good">enabled</Badge> : <Badge tone="bad">disabled: {webhook.disabledReason ?? 'no reason recorded'}</Badge>}
      </div>
      <p>
        Sends {webhook.events.join(', ')}. Added {when(webhook.createdAt)}.
        {webhook.failingSince && <> Failing since {when(webhook.failingSince)}.</>}
      </p>
      <div className="actions-row">
        <button type="button" onClick={() => test.mutate()} disabled={test.isPending || !webhook.enabled}>
          Send test event
        </button>
        <ConfirmButton
          label="Delete endpoint"
          question={`Delete the endpoint ${webhook.url}? Its delivery log goes with it and queued deliveries stop.`}
          pending={remove.isPending}
          onConfirm={() => remove.mutate()}
        />
      </div>
      {test.isError && <ErrorState error={test.error} />}
      {remove.isError && <ErrorState error={remove.error} />}
      <h3>Deliveries</h3>
      {deliveries.isPending && <Loading what="deliveries" />}
      {deliveries.isError && <ErrorState error={deliveries.error} />}
      {deliveries.data?.length === 0 && <p className="muted">No delivery yet. Send a test event to check the endpoint.</p>}
      {deliveries.data && deliveries.data.length > 0 && <DeliveryTable webhookId={webhook.id} deliveries={deliveries.data} onRetried={refreshDeliveries} />}
    </section>
  );
}

const STATUS_TONE = { pending: 'fair', succeeded: 'good', failed: 'bad', abandoned: 'bad' } as const;

function DeliveryTable({ webhookId, deliveries, onRetried }: { webhookId: string; deliveries: WebhookDelivery[]; onRetried: () => Promise<void> }) {
  const retry = useMutation({ mutationFn: (deliveryId: string) => api.webhooks.retryDelivery({ path: { webhookId, deliveryId } }), onSuccess: onRetried });
  return (
    <>
      <DataTable label={`Deliveries of ${webhookId}`} name={`Deliveries of ${webhookId}, newest first`} columns={['Event', 'Status', 'Attempts', 'Response', 'Latency', 'Next retry', 'Action']}>
        {deliveries.map((delivery) => (
          <tr key={delivery.id}>
            <th scope="row">
              {delivery.eventType} <span className="muted">{when(delivery.createdAt)}</span>
            </th>
            <td>
              <Badge tone={STATUS_TONE[delivery.status]}>{delivery.status}</Badge>
            </td>
            <td>{delivery.attempts}</td>
            <td>{delivery.lastResponseCode ?? delivery.lastError ?? '—'}</td>
            <td>{delivery.lastLatencyMs === null ? '—' : `${delivery.lastLatencyMs} ms`}</td>
            <td>{delivery.status === 'pending' && delivery.nextAttemptAt ? when(delivery.nextAttemptAt) : '—'}</td>
            <td>
              {(delivery.status === 'failed' || delivery.status === 'abandoned') && (
                <button type="button" className="secondary" onClick={() => retry.mutate(delivery.id)} disabled={retry.isPending}>
                  Retry {delivery.eventType}
                </button>
              )}
            </td>
          </tr>
        ))}
      </DataTable>
      {retry.isError && <ErrorState error={retry.error} />}
    </>
  );
}
