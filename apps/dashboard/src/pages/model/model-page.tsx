import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { api } from '../../api/client';
import type { ModelDetails, ModelVersion } from '../../api/types';
import { useCanAct } from '../../auth/access';
import { decimal, percent, predictsWhat, when } from '../../components/format';
import { HealthStrip } from '../../components/health-strip';
import { logLossLift, qualityGrade } from '../../components/quality-grade';
import { Badge, Empty, ErrorState, Loading } from '../../components/states';
import { href } from '../../routes';
import { FeatureImportance } from './feature-importance';
import { ModelActions } from './model-actions';
import { ModelManagement } from './model-management';
import { ThresholdExplorer } from './threshold-explorer';
import { ReliabilityDiagram, ScoreDistribution } from './validation-charts';
import { VersionHistory } from './version-history';

const RETRAINING_POLL_MS = 2_000;

export function ModelPage({ modelId }: { modelId: string }) {
  const model = useQuery({
    queryKey: ['model', modelId],
    queryFn: () => api.models.get({ path: { modelId } }),
    refetchInterval: (query) => (query.state.data?.status === 'retraining' ? RETRAINING_POLL_MS : false),
  });
  // A finished run changes lastRetrained even when its version was not promoted.
  const versions = useQuery({ queryKey: ['versions', modelId, model.data?.status, model.data?.version, model.data?.lastRetrained], queryFn: () => api.models.versions({ path: { modelId } }), enabled: model.isSuccess });
  if (model.isPending) return <Loading what="the model" />;
  if (model.isError) return <ErrorState error={model.error} retry={() => void model.refetch()} />;
  return (
    <>
      <p className="crumbs">
        <a href={href({ page: 'models' })}>Models</a> / {model.data.name}
      </p>
      <h1>
        {model.data.name} <Badge tone={model.data.status === 'failed' ? 'bad' : 'neutral'}>{model.data.status}</Badge>
      </h1>
      <p>
        Last 14 days of monitoring: <HealthStrip days={model.data.health} /> <a href={href({ page: 'monitoring', modelId })}>Monitoring over time</a>
      </p>
      <p className="muted">
        Predicts <strong>{predictsWhat(model.data)}</strong> ({model.data.algorithm}); labels {model.data.labels.join(' / ')}.
      </p>
      {model.data.lastError && (
        <div className="state error" role="alert">
          <p>
            <strong>The last training run failed:</strong> {model.data.lastError}
          </p>
        </div>
      )}
      <ModelActions model={model.data} />
      {versions.isPending && <Loading what="versions" />}
      {versions.isError && <ErrorState error={versions.error} retry={() => void versions.refetch()} />}
      {versions.data && versions.data.versions.length === 0 && <Untrained model={model.data} />}
      {versions.data && versions.data.versions.length > 0 && <Trained model={model.data} versions={versions.data.versions} />}
      <ModelManagement model={model.data} />
    </>
  );
}

function Untrained({ model }: { model: ModelDetails }) {
  const canAct = useCanAct('manage');
  return (
    <Empty title="Not trained yet">
      <p>
        {model.status === 'retraining'
          ? 'The first training run is in progress; this page updates when it finishes.'
          : canAct
            ? 'Press Retrain to train the first version from your events. It serves predictions as soon as a version exists.'
            : 'An administrator has to retrain it to produce the first version.'}
      </p>
    </Empty>
  );
}

function Trained({ model, versions }: { model: ModelDetails; versions: ModelVersion[] }) {
  const serving = versions.find((v) => v.state === 'serving') ?? versions[0];
  const [shownVersion, setShownVersion] = useState<number | null>(null);
  const shown = versions.find((v) => v.version === shownVersion) ?? serving;
  // Audiences follow the serving version's predictions: only its cutoffs make one.
  const canDefineAudiences = useCanAct('manage');
  return (
    <>
      <section className="panel" aria-labelledby="quality-heading">
        <div className="panel-head">
          <h2 id="quality-heading">Quality of version {shown.version}</h2>
          <label className="inline">
            Version{' '}
            <select value={shown.version} onChange={(e) => setShownVersion(Number(e.target.value))}>
              {versions.map((v) => (
                <option key={v.version} value={v.version}>
                  v{v.version} ({v.state})
                </option>
              ))}
            </select>
          </label>
        </div>
        <Quality version={shown} />
      </section>
      <section className="panel" aria-labelledby="importance-heading">
        <h2 id="importance-heading">What drives the prediction</h2>
        <FeatureImportance features={shown.featureImportance} />
      </section>
      {shown.curves ? (
        <>
          <div className="two-columns">
            <ReliabilityDiagram curves={shown.curves} />
            <ScoreDistribution curves={shown.curves} labels={model.labels} />
          </div>
          <ThresholdExplorer curves={shown.curves} labels={model.labels} audienceModelId={canDefineAudiences && shown.state === 'serving' ? model.id : null} />
        </>
      ) : (
        <Empty title="No curves for this version">
          <p>It was trained before the dashboard's curves were stored. Retrain to get a version with them.</p>
        </Empty>
      )}
      <VersionHistory model={model} versions={versions} />
    </>
  );
}

function Quality({ version }: { version: ModelVersion }) {
  const { metrics } = version;
  const grade = qualityGrade(metrics.auc);
  const lift = logLossLift(metrics.logLoss, metrics.baseRate);
  const figures: Array<[string, string, string]> = [
    ['AUC', decimal(metrics.auc), 'how well it ranks users who do it above those who do not (0.5 is chance, 1 is perfect)'],
    ['Accuracy', percent(metrics.accuracy), `share of validation users labelled right at the ${metrics.threshold} cutoff`],
    ['Precision', percent(metrics.precision), 'of the users it flags, the share who really do it'],
    ['Recall', percent(metrics.recall), 'of the users who do it, the share it flags'],
    ['Log loss', decimal(metrics.logLoss), `${percent(lift, 0)} better than always guessing the base rate of ${percent(metrics.baseRate)}`],
  ];
  return (
    <>
      <p className="grade">
        <Badge tone={grade.tone}>{grade.grade}</Badge> {grade.explanation}
      </p>
      <dl className="figures">
        {figures.map(([name, value, meaning]) => (
          <div key={name}>
            <dt>{name}</dt>
            <dd>
              <span className="figure">{value}</span>
              <span className="help">{meaning}</span>
            </dd>
          </div>
        ))}
      </dl>
      <p className="muted">
        Trained on {version.trainRows.toLocaleString('en-GB')} rows, validated on {version.validationRows.toLocaleString('en-GB')}; events from {when(version.windowStart)} to {when(version.windowEnd)}.
      </p>
    </>
  );
}
