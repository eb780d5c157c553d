import { useMutation, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { api } from '../../api/client';
import type { ModelDetails } from '../../api/types';
import { useCanAct } from '../../auth/access';
import { ErrorState } from '../../components/states';
import { href } from '../../routes';

/** Rename and delete: admin tokens only (read tokens see nothing of it); deleting asks for confirmation first. */
export function ModelManagement({ model }: { model: ModelDetails }) {
  const canAct = useCanAct('manage');
  const queries = useQueryClient();
  const [name, setName] = useState(model.name);
  const [confirming, setConfirming] = useState(false);
  const rename = useMutation({
    mutationFn: () => api.models.update({ path: { modelId: model.id }, body: { name: name.trim() } }),
    onSuccess: () => queries.invalidateQueries({ queryKey: ['model', model.id] }).then(() => queries.invalidateQueries({ queryKey: ['models'] })),
  });
  const remove = useMutation({
    mutationFn: () => api.models.delete({ path: { modelId: model.id } }),
    // Leave the page first: refetching the deleted model would only answer 404.
    onSuccess: () => {
      window.location.hash = href({ page: 'models' });
      return queries.invalidateQueries({ queryKey: ['models'] });
    },
  });
  if (!canAct) return null;
  const submitRename = (event: FormEvent) => {
    event.preventDefault();
    rename.mutate();
  };
  return (
    <section className="panel" aria-labelledby="manage-heading">
      <h2 id="manage-heading">Manage</h2>
      <form className="inline-form" onSubmit={submitRename}>
        <label htmlFor="model-name">Name (used as &quot;model&quot; in predictions: lowercase letters, digits and _)</label>
        <input id="model-name" value={name} onChange={(e) => setName(e.target.value)} pattern="[a-z][a-z0-9_]{2,63}" required />
        <button type="submit" className="secondary" disabled={rename.isPending || name.trim() === model.name}>
          Rename
        </button>
      </form>
      {rename.isError && <ErrorState error={rename.error} />}
      {rename.isSuccess && <p role="status">Renamed to {rename.data.name}.</p>}
      {confirming ? (
        <div className="confirm" role="alertdialog" aria-labelledby="confirm-delete" aria-describedby="confirm-delete-help" onKeyDown={(e) => e.key === 'Escape' && setConfirming(false)}>
          <p id="confirm-delete">
            <strong>Delete {model.name}?</strong>
          </p>
          <p id="confirm-delete-help">It stops serving predictions at once, its schedule and runs are cancelled, and its versions are removed. Logged predictions stay for export. This cannot be undone.</p>
          <button type="button" className="danger" onClick={() => remove.mutate()} disabled={remove.isPending} autoFocus>
            Yes, delete {model.name}
          </button>{' '}
          <button type="button" className="secondary" onClick={() => setConfirming(false)} disabled={remove.isPending}>
            Cancel
          </button>
        </div>
      ) : (
        <button type="button" className="danger" onClick={() => setConfirming(true)}>
          Delete model…
        </button>
      )}
      {remove.isError && <ErrorState error={remove.error} />}
    </section>
  );
}
