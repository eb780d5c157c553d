import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { api } from '../../api/client';
import type { OrganizationSettings } from '../../api/types';
import { useCanAct } from '../../auth/access';
import { ErrorState, Loading } from '../../components/states';

/** The organization's limits and privacy settings (admin). */
export function SettingsPage() {
  const canAct = useCanAct();
  const settings = useQuery({ queryKey: ['organization'], queryFn: () => api.organization.get(), enabled: canAct });
  return (
    <>
      <h1>Organization settings</h1>
      {!canAct && <p className="muted">Organization settings need a token with the admin scope.</p>}
      {settings.isPending && canAct && <Loading what="settings" />}
      {settings.isError && <ErrorState error={settings.error} />}
      {settings.data && <SettingsForm settings={settings.data} />}
    </>
  );
}

function SettingsForm({ settings }: { settings: OrganizationSettings }) {
  const queries = useQueryClient();
  const [rate, setRate] = useState(String(settings.rateLimitPerMinute));
  const [burst, setBurst] = useState(String(settings.burstPerMinute));
  const [retention, setRetention] = useState(String(settings.retentionDays));
  const [hashUserIds, setHashUserIds] = useState(settings.hashUserIds);
  const save = useMutation({
    mutationFn: () => api.organization.update({ body: { rateLimitPerMinute: Number(rate), burstPerMinute: Number(burst), retentionDays: Number(retention), hashUserIds } }),
    onSuccess: (saved) => queries.setQueryData(['organization'], saved),
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    save.mutate();
  };
  return (
    <section className="panel" aria-labelledby="settings-heading">
      <h2 id="settings-heading">{settings.name}</h2>
      <p className="muted">
        Organization <code>{settings.id}</code>, region {settings.region}.
      </p>
      <form className="stacked-form" onSubmit={submit}>
        <label htmlFor="rate-limit">Rate limit (requests per minute per token, sustained)</label>
        <input id="rate-limit" type="number" min={1} required value={rate} onChange={(e) => setRate(e.target.value)} />
        <label htmlFor="burst">Burst (most requests per token within one minute; above the rate limit)</label>
        <input id="burst" type="number" min={2} required value={burst} onChange={(e) => setBurst(e.target.value)} />
        <label htmlFor="retention">Retention (days events and predictions are kept)</label>
        <input id="retention" type="number" min={1} max={3650} required value={retention} onChange={(e) => setRetention(e.target.value)} />
        <label className="check">
          <input type="checkbox" checked={hashUserIds} onChange={(e) => setHashUserIds(e.target.checked)} /> Pseudonymize user ids (store a keyed hash)
        </label>
        <p className="muted">Pseudonymization applies to data received from now on only: ids already stored keep their form.</p>
        <button type="submit" disabled={save.isPending}>
          Save settings
        </button>
      </form>
      {save.isError && <ErrorState error={save.error} />}
      {save.isSuccess && <p role="status">Settings saved. New limits apply on every replica within a second.</p>}
    </section>
  );
}
