import { useQuery } from '@tanstack/react-query';
import { api } from '../../api/client';
import type { ModelSummary } from '../../api/types';
import { useCanAct } from '../../auth/access';
import { DataTable } from '../../components/data-table';
import { driftReading } from '../../components/drift-reading';
import { percent, predictsWhat, when } from '../../components/format';
import { HealthBadge, HealthStrip } from '../../components/health-strip';
import { modelHealth, qualityGrade } from '../../components/quality-grade';
import { Badge, Empty, ErrorState, Loading } from '../../components/states';
import { href } from '../../routes';
import { CreateModelForm } from './create-model-form';

export function ModelsPage() {
  const models = useQuery({ queryKey: ['models'], queryFn: () => api.models.list() });
  const canAct = useCanAct('manage');
  return (
    <>
      <h1>Models</h1>
      <section className="panel" aria-labelledby="models-heading">
        <h2 id="models-heading">Your models</h2>
        {models.isPending && <Loading what="models" />}
        {models.isError && <ErrorState error={models.error} retry={() => void models.refetch()} />}
        {models.data?.length === 0 && (
          <Empty title="No model yet">
            <p>Create a model below: pick the event you want to predict (a purchase, a cancellation) and how many days ahead.</p>
          </Empty>
        )}
        {models.data && models.data.length > 0 && (
          <>
            <ModelsTable models={models.data} />
            <p className="help">
              Last 14 days: one square per day from the monitoring runs, green healthy, amber degraded (moderate drift, or live accuracy 5 points under validation), red failing
              (high drift), outlined when no run covered the model that day.
            </p>
          </>
        )}
      </section>
      {canAct ? (
        <CreateModelForm />
      ) : (
        <p className="muted">This token has the read scope: creating models needs a token with the admin scope.</p>
      )}
    </>
  );
}

function ModelsTable({ models }: { models: ModelSummary[] }) {
  return (
    <DataTable label="Models" name="Models with their status, health, quality and schedule" className="models" columns={['Name', 'Predicts', 'Status', 'Health', 'Last 14 days', 'Quality', 'Serving', 'Last retrained', 'Schedule']}>
      {models.map((model) => (
        <ModelRow key={model.id} model={model} />
      ))}
    </DataTable>
  );
}

function ModelRow({ model }: { model: ModelSummary }) {
  const monitoring = useQuery({ queryKey: ['monitoring', model.id], queryFn: () => api.monitoring.get({ path: { modelId: model.id } }), enabled: model.version !== null });
  const health = modelHealth(model.status, monitoring.data && driftReading(monitoring.data));
  const grade = model.auc === null ? null : qualityGrade(model.auc);
  return (
    <tr>
      <th scope="row">
        <a href={href({ page: 'model', modelId: model.id })}>{model.name}</a>
      </th>
      <td>{predictsWhat(model)}</td>
      <td>{model.status}</td>
      <td>
        <HealthBadge health={health} />
      </td>
      <td>
        <HealthStrip days={model.health} />
      </td>
      <td>{grade ? <Badge tone={grade.tone}>{grade.grade}</Badge> : '—'}</td>
      <td>{model.version === null ? 'none' : `v${model.version} (${percent(model.accuracy)} accurate)`}</td>
      <td>{when(model.lastRetrained)}</td>
      <td>
        <code>{model.schedule ?? 'manual'}</code>
      </td>
    </tr>
  );
}
