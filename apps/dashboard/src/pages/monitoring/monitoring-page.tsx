import { useQuery } from '@tanstack/react-query';
import { useMemo } from 'react';
import { api } from '../../api/client';
import type { MonitoringFigures, MonitoringPoint } from '../../api/types';
import { TimeSeriesChart, type ValueBand } from '../../charts/time-series-chart';
import { driftReading } from '../../components/drift-reading';
import { decimal, percent, plural, when } from '../../components/format';
import { tooFewWords } from '../../components/quality-grade';
import { Empty, ErrorState, Loading } from '../../components/states';
import { href } from '../../routes';

const HISTORY_DAYS = 14;
const REFRESH_MS = 60_000;
/** The API's drift bands: PSI below 0.1 none, below 0.2 low, below 0.3 moderate, else high. */
const PSI_BANDS: ValueBand[] = [
  { from: 0.1, label: 'low', colour: 'rgba(250, 204, 21, 0.16)' },
  { from: 0.2, label: 'moderate', colour: 'rgba(249, 115, 22, 0.18)' },
  { from: 0.3, label: 'high', colour: 'rgba(220, 38, 38, 0.16)' },
];
/** The PSI axis always shows every band, however low the drift. */
const PSI_AXIS: [number, number] = [0, 0.35];

/** How to get monitoring figures now, rather than at the next scheduled run. */
function HowToRunMonitoring() {
  return (
    <p>
      The monitoring job runs on its schedule (<code>MONITORING_SCHEDULE</code>, by default hourly at minute 7) and records one point per serving model. To record one now, run{' '}
      <code>npm run cli -- monitor run</code> on the server. Drift needs enough predictions in the last 24 hours (<code>GET /v1/predict</code> calls or a bulk scoring run).
    </p>
  );
}

export function MonitoringPage({ modelId }: { modelId?: string }) {
  const models = useQuery({ queryKey: ['models'], queryFn: () => api.models.list() });
  if (models.isPending) return <Loading what="models" />;
  if (models.isError) return <ErrorState error={models.error} retry={() => void models.refetch()} />;
  const serving = models.data.filter((m) => m.version !== null);
  const chosen = modelId ?? serving[0]?.id;
  return (
    <>
      <h1>Monitoring</h1>
      {serving.length === 0 ? (
        <Empty title="Nothing to monitor yet">
          <p>
            Monitoring follows models that serve predictions. <a href={href({ page: 'models' })}>Train a model</a> and call <code>GET /v1/predict</code>; figures appear after the next monitoring run.
          </p>
          <HowToRunMonitoring />
        </Empty>
      ) : (
        <>
          <nav aria-label="Monitored models" className="tabs">
            {serving.map((m) => (
              <a key={m.id} href={href({ page: 'monitoring', modelId: m.id })} aria-current={m.id === chosen ? 'page' : undefined}>
                {m.name}
              </a>
            ))}
          </nav>
          {chosen && <ModelMonitoring modelId={chosen} />}
        </>
      )}
    </>
  );
}

function ModelMonitoring({ modelId }: { modelId: string }) {
  const since = useMemo(() => new Date(Date.now() - HISTORY_DAYS * 86_400_000).toISOString(), []);
  // A monitoring run adds a point while the page is open: ask again every minute.
  const history = useQuery({ queryKey: ['monitoring-history', modelId], queryFn: () => api.monitoring.history({ path: { modelId }, query: { since } }), refetchInterval: REFRESH_MS });
  const current = useQuery({ queryKey: ['monitoring', modelId], queryFn: () => api.monitoring.get({ path: { modelId } }), refetchInterval: REFRESH_MS });
  if (history.isPending) return <Loading what="the monitoring history" />;
  if (history.isError) return <ErrorState error={history.error} retry={() => void history.refetch()} />;
  const points = history.data.points;
  return (
    <>
      {current.data && (
        <dl className="figures">
          <div>
            <dt>Accuracy now</dt>
            <dd>
              <span className="figure">{percent(current.data.accuracy)}</span>
              <span className="help">{current.data.accuracySource === 'live' ? 'from matured predictions' : 'from validation (too few matured predictions yet)'}</span>
            </dd>
          </div>
          <div>
            <dt>Drift</dt>
            <dd>
              <DriftFigure figures={current.data} />
            </dd>
          </div>
          <div>
            <dt>Latency p95</dt>
            <dd>
              <span className="figure">{current.data.latencyMs === null ? '—' : `${current.data.latencyMs.toFixed(1)} ms`}</span>
              <span className="help">last 15 minutes</span>
            </dd>
          </div>
          <div>
            <dt>Throughput</dt>
            <dd>
              <span className="figure">{current.data.throughput.toFixed(1)}</span>
              <span className="help">predictions per minute</span>
            </dd>
          </div>
        </dl>
      )}
      {points.length === 0 ? (
        <Empty title="No monitoring runs yet">
          <HowToRunMonitoring />
        </Empty>
      ) : (
        <History points={points} />
      )}
    </>
  );
}

function DriftFigure({ figures }: { figures: MonitoringFigures }) {
  const reading = driftReading(figures);
  if (reading.measured === 'never') {
    return (
      <>
        <span className="figure">not measured</span>
        <span className="help">no monitoring run yet</span>
      </>
    );
  }
  if (reading.measured === 'too_few') {
    return (
      <>
        <span className="figure">too few</span>
        <span className="help">{tooFewWords(reading.sample, reading.minimum)}</span>
      </>
    );
  }
  return (
    <>
      <span className="figure">{reading.status}</span>
      <span className="help">PSI {decimal(figures.psi)}</span>
    </>
  );
}

function History({ points }: { points: MonitoringPoint[] }) {
  const charts = useMemo(() => {
    const times = points.map((p) => Date.parse(p.computedAt) / 1000);
    return {
      times,
      quality: [
        { name: 'accuracy', values: points.map((p) => p.accuracy) },
        { name: 'mean confidence − validation', values: points.map((p) => p.drift.delta) },
      ],
      psi: [{ name: 'PSI', values: points.map((p) => p.psi) }],
      latency: [{ name: 'latency p95 (ms)', values: points.map((p) => p.latencyMs) }],
      throughput: [{ name: 'predictions / min', values: points.map((p) => p.throughput) }],
    };
  }, [points]);
  const last = points[points.length - 1];
  const unmeasured = points.filter((p) => p.psi === null).length;
  return (
    <>
      <p className="muted">
        {plural(points.length, 'monitoring run')} in the last {HISTORY_DAYS} days; the latest at {when(last.computedAt)} on version {last.version}.
      </p>
      <div className="two-columns">
        <section className="panel" aria-labelledby="accuracy-heading">
          <h2 id="accuracy-heading">Accuracy and confidence shift</h2>
          <TimeSeriesChart label="Accuracy and mean confidence shift over time" times={charts.times} series={charts.quality} />
        </section>
        <section className="panel" aria-labelledby="psi-heading">
          <h2 id="psi-heading">Drift (PSI) with severity bands</h2>
          <TimeSeriesChart label="Population stability index over time with the low, moderate and high bands" times={charts.times} series={charts.psi} bands={PSI_BANDS} yCovers={PSI_AXIS} />
          <p className="chart-note">
            Shaded bands: low drift from PSI 0.1, moderate from 0.2, high from 0.3.
            {unmeasured > 0 && ` ${plural(unmeasured, 'run')} had too few predictions to measure drift and ${unmeasured === 1 ? 'is' : 'are'} left out.`}
          </p>
        </section>
        <section className="panel" aria-labelledby="latency-heading">
          <h2 id="latency-heading">Latency p95</h2>
          <TimeSeriesChart label="Inference latency p95 over time" times={charts.times} series={charts.latency} yLabel="ms" />
        </section>
        <section className="panel" aria-labelledby="throughput-heading">
          <h2 id="throughput-heading">Throughput</h2>
          <TimeSeriesChart label="Predictions per minute over time" times={charts.times} series={charts.throughput} />
        </section>
      </div>
    </>
  );
}
