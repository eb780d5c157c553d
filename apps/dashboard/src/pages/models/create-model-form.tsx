import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { api } from '../../api/client';
import type { Algorithm } from '../../api/types';
import { ErrorState } from '../../components/states';
import { href } from '../../routes';

/** Create a model: the target event is picked from the organization's own events of the last 30 days. */
export function CreateModelForm() {
  const queries = useQueryClient();
  const events = useQuery({ queryKey: ['volume', 'day'], queryFn: () => api.events.volume({ query: { bucket: 'day' } }) });
  const [name, setName] = useState('');
  const [targetEvent, setTargetEvent] = useState('');
  const [horizonDays, setHorizonDays] = useState(7);
  const [algorithm, setAlgorithm] = useState<Algorithm>('gbdt');
  const [schedule, setSchedule] = useState('');
  const create = useMutation({
    mutationFn: () => api.models.create({ body: { name, targetEvent, horizonDays, algorithm, schedule: schedule.trim() === '' ? null : schedule.trim() } }),
    onSuccess: async (model) => {
      await queries.invalidateQueries({ queryKey: ['models'] });
      window.location.hash = href({ page: 'model', modelId: model.id });
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate();
  };
  const names = events.data?.totals.map((total) => total.event) ?? [];
  return (
    <section className="panel" aria-labelledby="create-heading">
      <h2 id="create-heading">Create a model</h2>
      <form className="grid-form" onSubmit={submit}>
        <label htmlFor="model-name">Name</label>
        <input id="model-name" value={name} onChange={(e) => setName(e.target.value)} pattern="[a-z][a-z0-9_]{2,63}" required aria-describedby="model-name-help" />
        <p id="model-name-help" className="help">
          Lowercase letters, digits and _, starting with a letter (used as <code>model</code> in predictions).
        </p>
        <label htmlFor="model-target">Target event</label>
        <select id="model-target" value={targetEvent} onChange={(e) => setTargetEvent(e.target.value)} required aria-describedby="model-target-help">
          <option value="">{events.isPending ? 'Loading your events…' : 'Pick an event'}</option>
          {names.map((event) => (
            <option key={event} value={event}>
              {event}
            </option>
          ))}
        </select>
        <p id="model-target-help" className="help">
          The model predicts whether each user does this event {names.length === 0 && !events.isPending ? '(no events in the last 30 days: send some first)' : ''} within the horizon.
        </p>
        <label htmlFor="model-horizon">Horizon (days)</label>
        <input id="model-horizon" type="number" min={1} max={365} value={horizonDays} onChange={(e) => setHorizonDays(Number(e.target.value))} required />
        <label htmlFor="model-algorithm">Algorithm</label>
        <select id="model-algorithm" value={algorithm} onChange={(e) => setAlgorithm(e.target.value as Algorithm)}>
          <option value="gbdt">Gradient-boosted trees (usually more accurate)</option>
          <option value="logistic">Logistic regression (simpler, easy to explain)</option>
        </select>
        <label htmlFor="model-schedule">Retraining schedule</label>
        <input id="model-schedule" value={schedule} onChange={(e) => setSchedule(e.target.value)} placeholder="0 3 * * *" aria-describedby="model-schedule-help" />
        <p id="model-schedule-help" className="help">
          Five-field cron in UTC (at most once a minute), e.g. <code>0 3 * * *</code> for 03:00 every day. Empty: retrain by hand.
        </p>
        <div>
          <button type="submit" disabled={create.isPending}>
            {create.isPending ? 'Creating…' : 'Create model'}
          </button>
        </div>
      </form>
      {create.isError && <ErrorState error={create.error} />}
    </section>
  );
}
