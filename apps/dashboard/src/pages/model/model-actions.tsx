import { useMutation, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { api } from '../../api/client';
import type { ModelDetails } from '../../api/types';
import { useCanAct } from '../../auth/access';
import { when } from '../../components/format';
import { ErrorState } from '../../components/states';

/** Retrain and the schedule editor: admin tokens only; read tokens see the schedule as text. */
export function ModelActions({ model }: { model: ModelDetails }) {
  const canAct = useCanAct('manage');
  const queries = useQueryClient();
  const refresh = () => queries.invalidateQueries({ queryKey: ['model', model.id] }).then(() => queries.invalidateQueries({ queryKey: ['models'] }));
  const retrain = useMutation({ mutationFn: () => api.models.retrain({ body: { modelId: model.id } }), onSuccess: refresh });
  const [schedule, setSchedule] = useState(model.schedule ?? '');
  const saveSchedule = useMutation({ mutationFn: () => api.models.update({ path: { modelId: model.id }, body: { schedule: schedule.trim() === '' ? null : schedule.trim() } }), onSuccess: refresh });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    saveSchedule.mutate();
  };
  return (
    <section className="panel actions" aria-labelledby="actions-heading">
      <h2 id="actions-heading">Training</h2>
      <p>
        Last retrained {when(model.lastRetrained)}. Schedule: <code>{model.schedule ?? 'none (retrained by hand)'}</code>.
      </p>
      {canAct ? (
        <>
          <button type="button" onClick={() => retrain.mutate()} disabled={retrain.isPending || model.status === 'retraining'}>
            {model.status === 'retraining' ? 'Retraining…' : 'Retrain now'}
          </button>
          {retrain.isError && <ErrorState error={retrain.error} />}
          <form className="inline-form" onSubmit={submit}>
            <label htmlFor="schedule">Retraining schedule (five-field cron, UTC; empty stops it)</label>
            <input id="schedule" value={schedule} onChange={(e) => setSchedule(e.target.value)} placeholder="0 3 * * *" />
            <button type="submit" className="secondary" disabled={saveSchedule.isPending}>
              Save schedule
            </button>
          </form>
          {saveSchedule.isError && <ErrorState error={saveSchedule.error} />}
          {saveSchedule.isSuccess && <p role="status">Schedule saved.</p>}
        </>
      ) : (
        <p className="muted">This token has the read scope: retraining and schedules need a token with the admin scope.</p>
      )}
    </section>
  );
}
