import { useQuery } from '@tanstack/react-query';
import { useMemo, useState } from 'react';
import { api } from '../../api/client';
import type { ModelSummary } from '../../api/types';
import { TimeSeriesChart } from '../../charts/time-series-chart';
import { driftReading } from '../../components/drift-reading';
import { count, predictsWhat } from '../../components/format';
import { HealthBadge, HealthStrip } from '../../components/health-strip';
import { modelHealth } from '../../components/quality-grade';
import { Empty, ErrorState, Loading } from '../../components/states';
import { href } from '../../routes';
import { IngestionPanel } from './ingestion-panel';
import { volumeSeries } from './volume-series';

export function OverviewPage() {
  const [bucket, setBucket] = useState<'hour' | 'day'>('hour');
  const volume = useQuery({ queryKey: ['volume', bucket], queryFn: () => api.events.volume({ query: { bucket: bucket } }) });
  const drawn = useMemo(() => (volume.data ? volumeSeries(volume.data) : null), [volume.data]);
  const total = volume.data?.totals.reduce((sum, t) => sum + t.count, 0) ?? 0;
  return (
    <>
      <h1>Overview</h1>
      <section aria-labelledby="events-heading" className="panel">
        <div className="panel-head">
          <h2 id="events-heading">Events per {bucket}</h2>
          <fieldset className="toggle">
            <legend className="visually-hidden">Bucket size</legend>
            {(['hour', 'day'] as const).map((size) => (
              <label key={size}>
                <input type="radio" name="bucket" value={size} checked={bucket === size} onChange={() => setBucket(size)} />
                {size === 'hour' ? 'Last 48 hours' : 'Last 30 days'}
              </label>
            ))}
          </fieldset>
        </div>
        {volume.isPending && <Loading what="event volume" />}
        {volume.isError && <ErrorState error={volume.error} retry={() => void volume.refetch()} />}
        {volume.data && drawn && total === 0 && <NoEventsYet />}
        {volume.data && drawn && total > 0 && (
          <>
            <p>
              {count(total)} events of {volume.data.totals.length} kinds occurred in this window, counted by when they happened (the time the sender gave them; events sent late or
              seeded land in their own hour or day). The ingestion figures below count by when events arrived.
            </p>
            <TimeSeriesChart label={`Events per ${bucket}, stacked by event name`} times={drawn.times} series={drawn.series} stacked yLabel="events" partialFrom={drawn.partialFrom} />
            <h3>Active users per {bucket}</h3>
            <TimeSeriesChart label={`Active users per ${bucket}`} times={drawn.times} series={[drawn.users]} yLabel="users" partialFrom={drawn.partialFrom} />
            {drawn.partialFrom !== null && <p className="chart-note">The current {bucket} is not over: its last point, in the shaded part, counts only the events so far.</p>}
          </>
        )}
      </section>
      <IngestionPanel bucket={bucket} />
      <ModelsHealth />
    </>
  );
}

function NoEventsYet() {
  const snippet = `<script src="${window.location.origin}/sdk/foresight.js"></script>
<script>
  Foresight.init('pat_prod_…');  // a token with the ingest scope only
  Foresight.identify('user-42');
  Foresight.track('signed_up');
</script>`;
  return (
    <Empty title="No events yet">
      <p>No event occurred in this window. Send events from your app with the web SDK (an ingest-only token), or from a backend with POST /v1/events:</p>
      <pre>
        <code>{snippet}</code>
      </pre>
    </Empty>
  );
}

function ModelsHealth() {
  const models = useQuery({ queryKey: ['models'], queryFn: () => api.models.list() });
  return (
    <section aria-labelledby="health-heading" className="panel">
      <h2 id="health-heading">Models at a glance</h2>
      {models.isPending && <Loading what="models" />}
      {models.isError && <ErrorState error={models.error} retry={() => void models.refetch()} />}
      {models.data?.length === 0 && (
        <Empty title="No model yet">
          <p>
            A model predicts whether each user will do a target event. <a href={href({ page: 'models' })}>Create one on the Models page</a>.
          </p>
        </Empty>
      )}
      {models.data && models.data.length > 0 && (
        <ul className="health-list">
          {models.data.map((model) => (
            <HealthRow key={model.id} model={model} />
          ))}
        </ul>
      )}
    </section>
  );
}

function HealthRow({ model }: { model: ModelSummary }) {
  const monitoring = useQuery({ queryKey: ['monitoring', model.id], queryFn: () => api.monitoring.get({ path: { modelId: model.id } }), enabled: model.version !== null });
  const health = modelHealth(model.status, monitoring.data && driftReading(monitoring.data));
  return (
    <li>
      <a href={href({ page: 'model', modelId: model.id })}>{model.name}</a> <HealthBadge health={health} /> <HealthStrip days={model.health} />
      <span className="muted"> predicts {predictsWhat(model)}</span>
    </li>
  );
}
