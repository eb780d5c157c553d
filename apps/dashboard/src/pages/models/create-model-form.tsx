import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { api } from '../../api/client';
import type { Algorithm, ModelKind } from '../../api/types';
import { ErrorState } from '../../components/states';
import { href } from '../../routes';

/** Create a model of any kind: the target event is picked from the organization's own events of the last 30 days. */
export function CreateModelForm() {
  const queries = useQueryClient();
  const events = useQuery({ queryKey: ['volume', 'day'], queryFn: () => api.events.volume({ query: { bucket: 'day' } }) });
  const [name, setName] = useState('');
  const [kind, setKind] = useState<ModelKind>('event');
  const [targetEvent, setTargetEvent] = useState('');
  const [valueProperty, setValueProperty] = useState('');
  const [activeDays, setActiveDays] = useState(7);
  const [horizonDays, setHorizonDays] = useState(7);
  const [algorithm, setAlgorithm] = useState<Algorithm>('gbdt');
  const [schedule, setSchedule] = useState('');
  const create = useMutation({
    mutationFn: () => {
      const common = { name, kind, horizonDays, algorithm, schedule: schedule.trim() === '' ? null : schedule.trim() };
      const what = kind === 'inactivity' ? { activeDays } : kind === 'value' ? { targetEvent, valueProperty: valueProperty.trim() } : { targetEvent };
      return api.models.create({ body: { ...common, ...what } });
    },
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
        <label htmlFor="model-kind">Predicts</label>
        <select id="model-kind" value={kind} onChange={(e) => setKind(e.target.value as ModelKind)} aria-describedby="model-kind-help">
          <option value="event">whether a user does an event</option>
          <option value="inactivity">whether a user goes quiet (churn)</option>
          <option value="value">how much a user will spend (the sum of a number)</option>
        </select>
        <p id="model-kind-help" className="help">
          {kind === 'event' && 'The probability that each user does the target event within the horizon.'}
          {kind === 'inactivity' && 'The probability that a recently active user sends no event at all within the horizon.'}
          {kind === 'value' && 'The expected sum of a numeric property of the target event within the horizon, with a p10–p90 range and the probability of any at all.'}
        </p>
        {kind !== 'inactivity' && (
          <>
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
              {names.length === 0 && !events.isPending ? 'No events in the last 30 days: send some first.' : 'One of the events your apps sent in the last 30 days.'}
            </p>
          </>
        )}
        {kind === 'value' && (
          <>
            <label htmlFor="model-value-property">Value property</label>
            <input id="model-value-property" value={valueProperty} onChange={(e) => setValueProperty(e.target.value)} required placeholder="amount" aria-describedby="model-value-property-help" />
            <p id="model-value-property-help" className="help">
              The numeric property of the target event to sum, e.g. <code>amount</code> or <code>revenue</code>.
            </p>
          </>
        )}
        {kind === 'inactivity' && (
          <>
            <label htmlFor="model-active-days">Active within (days)</label>
            <input id="model-active-days" type="number" min={1} max={90} value={activeDays} onChange={(e) => setActiveDays(Number(e.target.value))} required aria-describedby="model-active-days-help" />
            <p id="model-active-days-help" className="help">
              Predicts for users who sent an event within this many days; others get the churn rate of users as quiet as they are.
            </p>
          </>
        )}
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
