import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '../../api/client';
import type { ModelDetails, ModelVersion } from '../../api/types';
import { useCanAct } from '../../auth/access';
import { DataTable } from '../../components/data-table';
import { decimal, percent, when } from '../../components/format';
import { Badge, ErrorState } from '../../components/states';

const STATE_TONE = { serving: 'good', retired: 'neutral', rejected: 'fair' } as const;

/** Every training run that produced a version, with why a version was not promoted, and promote/rollback. */
export function VersionHistory({ model, versions }: { model: ModelDetails; versions: ModelVersion[] }) {
  const canAct = useCanAct('manage');
  const queries = useQueryClient();
  const promote = useMutation({
    mutationFn: (version: number) => api.models.promote({ path: { modelId: model.id, version } }),
    onSuccess: () => Promise.all([queries.invalidateQueries({ queryKey: ['model', model.id] }), queries.invalidateQueries({ queryKey: ['versions', model.id] })]),
  });
  const servingVersion = versions.find((v) => v.state === 'serving')?.version ?? 0;
  return (
    <section className="panel" aria-labelledby="history-heading">
      <h2 id="history-heading">Versions and training runs</h2>
      <DataTable label="Trained versions" name="Trained versions, newest first" columns={['Version', 'Trained', 'State', 'AUC', 'Accuracy', 'Rows (train / validation)', 'Notes', ...(canAct ? ['Action'] : [])]}>
        {model.lastError && (
          <tr className="failed-run">
            <th scope="row">latest run</th>
            <td>—</td>
            <td>
              <Badge tone="bad">failed</Badge>
            </td>
            <td colSpan={canAct ? 5 : 4}>{model.lastError}</td>
          </tr>
        )}
        {versions.map((version) => (
          <tr key={version.version}>
            <th scope="row">v{version.version}</th>
            <td>{when(version.createdAt)}</td>
            <td>
              <Badge tone={STATE_TONE[version.state]}>{version.state}</Badge>
            </td>
            <td>{decimal(version.metrics.auc)}</td>
            <td>{percent(version.metrics.accuracy)}</td>
            <td>
              {version.trainRows.toLocaleString('en-GB')} / {version.validationRows.toLocaleString('en-GB')}
            </td>
            <td>{version.rejectionReason ?? ''}</td>
            {canAct && (
              <td>
                {version.state !== 'serving' && (
                  <button type="button" className="secondary" disabled={promote.isPending} onClick={() => promote.mutate(version.version)}>
                    {version.version < servingVersion ? `Roll back to v${version.version}` : `Promote v${version.version}`}
                  </button>
                )}
              </td>
            )}
          </tr>
        ))}
      </DataTable>
      {promote.isError && <ErrorState error={promote.error} />}
    </section>
  );
}
