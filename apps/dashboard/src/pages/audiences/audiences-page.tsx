import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useMemo, useState } from 'react';
import { api } from '../../api/client';
import type { AudienceDetails, AudienceSummary, CreateAudience, ModelSummary, ThresholdPoint } from '../../api/types';
import { useCanAct } from '../../auth/access';
import { TimeSeriesChart } from '../../charts/time-series-chart';
import { ConfirmButton } from '../../components/confirm-button';
import { CutoffSlider } from '../../components/cutoff-slider';
import { count, decimal, percent, when } from '../../components/format';
import { ErrorState, Loading } from '../../components/states';

/** How often the list is read again: often while a new audience's members are being computed. */
const COMPUTING_POLL_MS = 1_000;
const LIST_POLL_MS = 10_000;
/** Where the slider starts without a cutoff from the explorer: the cutoff that holds about this share of users. */
const START_SHARE = 0.1;

/** Audiences: define one from a cutoff (or a top percent) with its expected precision and recall on validation, list them with their size, download members. */
export function AudiencesPage({ from }: { from?: AudienceStart }) {
  const canManage = useCanAct('manage');
  const audiences = useQuery({
    queryKey: ['audiences'],
    queryFn: () => api.audiences.list(),
    refetchInterval: (query) => (query.state.data?.some((audience) => audience.size === null) ? COMPUTING_POLL_MS : LIST_POLL_MS),
  });
  const models = useQuery({ queryKey: ['models'], queryFn: () => api.models.list() });
  const serving = (models.data ?? []).filter((model) => model.version !== null);
  return (
    <>
      <h1>Audiences</h1>
      <p className="help">
        An audience is the list of users a model gives at least a chosen probability of a label, or the most likely percent of them. Members are recomputed after every bulk scoring run;
        endpoints subscribed to audience.entered and audience.left hear who joined and who left.
      </p>
      {canManage && models.isSuccess && serving.length === 0 && <p className="muted">No model serves a version yet: train one first, then define audiences from its predictions.</p>}
      {canManage && serving.length > 0 && <DefineAudience models={serving} from={from} />}
      {audiences.isPending && <Loading what="audiences" />}
      {audiences.isError && <ErrorState error={audiences.error} retry={() => void audiences.refetch()} />}
      {audiences.data?.length === 0 && <p>No audience yet.</p>}
      {audiences.data && audiences.data.length > 0 && <AudienceList audiences={audiences.data} models={models.data ?? []} canManage={canManage} />}
    </>
  );
}

type RuleKind = 'minConfidence' | 'topPercent';

/** Where the form starts when a person comes from a model page's cutoff explorer. */
export interface AudienceStart {
  modelId: string;
  cutoff?: number;
}

/** The audience's side of a validation threshold point: the flagged users for the positive label, the others for the negative one. */
function sideOf(point: ThresholdPoint, positive: boolean) {
  const held = positive ? point.truePositives + point.falsePositives : point.trueNegatives + point.falseNegatives;
  const right = positive ? point.truePositives : point.trueNegatives;
  const withLabel = positive ? point.truePositives + point.falseNegatives : point.trueNegatives + point.falsePositives;
  const total = point.truePositives + point.falsePositives + point.trueNegatives + point.falseNegatives;
  return { cutoff: positive ? point.threshold : 1 - point.threshold, share: total > 0 ? held / total : 0, precision: held > 0 ? right / held : null, recall: withLabel > 0 ? right / withLabel : null };
}

type Side = ReturnType<typeof sideOf>;

/** The side nearest to a wanted value (a cutoff or a share of users). */
function nearest(sides: Side[], value: (side: Side) => number, wanted: number): number {
  let best = 0;
  sides.forEach((side, index) => {
    if (Math.abs(value(side) - wanted) < Math.abs(value(sides[best]) - wanted)) best = index;
  });
  return best;
}

function DefineAudience({ models, from }: { models: ModelSummary[]; from?: AudienceStart }) {
  const queries = useQueryClient();
  const [modelId, setModelId] = useState(models.some((model) => model.id === from?.modelId) ? (from?.modelId ?? models[0].id) : models[0].id);
  const details = useQuery({ queryKey: ['model', modelId], queryFn: () => api.models.get({ path: { modelId } }) });
  const versions = useQuery({ queryKey: ['versions', modelId], queryFn: () => api.models.versions({ path: { modelId } }) });
  const [name, setName] = useState('');
  const [labelIndex, setLabelIndex] = useState(1);
  const [kind, setKind] = useState<RuleKind>('minConfidence');
  const [topPercent, setTopPercent] = useState(START_SHARE * 100);
  const curves = versions.data?.versions.find((version) => version.state === 'serving')?.curves ?? null;
  const labels = details.data?.labels ?? [];
  const positive = labelIndex === 1;
  // The slider walks the validation cutoffs, from the broadest audience to the narrowest.
  const sides = useMemo(() => {
    const all = (curves?.thresholds ?? []).map((point) => sideOf(point, positive));
    return positive ? all : all.reverse();
  }, [curves, positive]);
  // Until the slider moves, it sits at the explorer's cutoff, or else where it holds about a tenth of the users.
  const [step, setStep] = useState<number | null>(null);
  const explorerCutoff = positive && modelId === from?.modelId ? from.cutoff : undefined;
  const startStep = explorerCutoff === undefined ? nearest(sides, (side) => side.share, START_SHARE) : nearest(sides, (side) => side.cutoff, explorerCutoff);
  const shownStep = sides.length === 0 ? 0 : Math.min(step ?? startStep, sides.length - 1);
  const chosen: Side | undefined = kind === 'minConfidence' ? sides[shownStep] : sides[nearest(sides, (side) => side.share, topPercent / 100)];
  const create = useMutation({
    mutationFn: (body: CreateAudience) => api.audiences.create({ body }),
    onSuccess: () => {
      setName('');
      void queries.invalidateQueries({ queryKey: ['audiences'] });
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (!labels[labelIndex] || (kind === 'minConfidence' && !chosen)) return;
    const rule = kind === 'minConfidence' ? { minConfidence: Math.max(0.01, Math.round((chosen?.cutoff ?? 0.5) * 100) / 100) } : { topPercent };
    create.mutate({ name: name.trim(), modelId, label: labels[labelIndex], rule });
  };
  return (
    <section className="panel" aria-labelledby="define-audience-heading">
      <h2 id="define-audience-heading">Define an audience</h2>
      <form className="stacked-form" onSubmit={submit}>
        <label htmlFor="audience-name">Name</label>
        <input id="audience-name" required maxLength={128} value={name} onChange={(e) => setName(e.target.value)} placeholder="likely to buy this week" />
        <label htmlFor="audience-model">Model</label>
        <select
          id="audience-model"
          value={modelId}
          onChange={(e) => {
            setModelId(e.target.value);
            setStep(null);
          }}
        >
          {models.map((model) => (
            <option key={model.id} value={model.id}>
              {model.name}
            </option>
          ))}
        </select>
        <label htmlFor="audience-label">Label</label>
        <select
          id="audience-label"
          value={labelIndex}
          onChange={(e) => {
            setLabelIndex(Number(e.target.value));
            setStep(null);
          }}
        >
          {labels.map((label, index) => (
            <option key={label} value={index}>
              {label}
            </option>
          ))}
        </select>
        <fieldset>
          <legend>Who is in it</legend>
          <label className="check">
            <input type="radio" name="audience-rule" checked={kind === 'minConfidence'} onChange={() => setKind('minConfidence')} /> users with at least a probability
          </label>
          <label className="check">
            <input type="radio" name="audience-rule" checked={kind === 'topPercent'} onChange={() => setKind('topPercent')} /> the most likely percent of scored users
          </label>
        </fieldset>
        {kind === 'minConfidence' && chosen && (
          <CutoffSlider steps={sides.length} step={shownStep} onStep={setStep} valueText={`probability at least ${decimal(chosen.cutoff, 2)}: holds ${percent(chosen.share)} of users`}>
            Probability of {labels[labelIndex] ?? 'the label'} at least: <strong>{decimal(chosen.cutoff, 2)}</strong>
          </CutoffSlider>
        )}
        {kind === 'topPercent' && (
          <>
            <label htmlFor="audience-top-percent">Percent of scored users</label>
            <input id="audience-top-percent" type="number" min={0.1} max={100} step={0.1} value={topPercent} onChange={(e) => setTopPercent(Number(e.target.value))} />
          </>
        )}
        {chosen ? (
          <p role="status">
            On the validation set, this audience holds <strong>{percent(chosen.share)}</strong> of users; <strong>{percent(chosen.precision)}</strong> of them had the label {labels[labelIndex]} (precision), and it
            holds <strong>{percent(chosen.recall)}</strong> of all who had it (recall).
          </p>
        ) : (
          <p className="muted">{versions.isPending ? 'Reading the validation curves…' : 'This version has no validation curves: expected precision and recall are unknown.'}</p>
        )}
        <button type="submit" disabled={create.isPending || labels.length === 0}>
          Create audience
        </button>
      </form>
      {create.isError && <ErrorState error={create.error} />}
      {create.isSuccess && <p role="status">Audience {create.data.name} created: its members are being computed.</p>}
    </section>
  );
}

function ruleText(audience: AudienceSummary): string {
  return 'minConfidence' in audience.rule ? `probability of ${audience.label} ≥ ${decimal(audience.rule.minConfidence, 2)}` : `top ${audience.rule.topPercent}% most likely ${audience.label}`;
}

/** One card per audience (a list a phone shows whole, actions included, rather than a table to scroll sideways). */
function AudienceList({ audiences, models, canManage }: { audiences: AudienceSummary[]; models: ModelSummary[]; canManage: boolean }) {
  const names = new Map(models.map((model) => [model.id, model.name]));
  return (
    <section className="panel" aria-labelledby="audiences-heading">
      <h2 id="audiences-heading">Your audiences</h2>
      <p className="help">Expected precision and recall are those of the serving version on its validation set, at the audience's cutoff.</p>
      <ul className="audience-list">
        {audiences.map((audience) => (
          <li key={audience.id}>
            <AudienceCard audience={audience} model={names.get(audience.modelId) ?? audience.modelId} canManage={canManage} />
          </li>
        ))}
      </ul>
    </section>
  );
}

function AudienceCard({ audience, model, canManage }: { audience: AudienceSummary; model: string; canManage: boolean }) {
  const queries = useQueryClient();
  // Precision and recall come with the details; read again once a computation lands.
  const details = useQuery({ queryKey: ['audience', audience.id, audience.computedAt], queryFn: () => api.audiences.get({ path: { audienceId: audience.id } }) });
  const download = useMutation({ mutationFn: () => api.audienceMembersCsv(audience.id), onSuccess: (csv) => saveCsv(`foresight-audience-${audience.id}.csv`, csv) });
  const remove = useMutation({ mutationFn: () => api.audiences.delete({ path: { audienceId: audience.id } }), onSuccess: () => queries.invalidateQueries({ queryKey: ['audiences'] }) });
  const headingId = `audience-${audience.id}`;
  return (
    <article aria-labelledby={headingId}>
      <h3 id={headingId}>{audience.name}</h3>
      <p className="muted">
        {model}: {ruleText(audience)}
      </p>
      <dl className="figures">
        <div>
          <dt>Members</dt>
          <dd className="figure">{audience.size === null ? 'computing…' : count(audience.size)}</dd>
        </div>
        <div>
          <dt>Expected precision</dt>
          <dd className="figure">{percent(details.data?.precision)}</dd>
        </div>
        <div>
          <dt>Expected recall</dt>
          <dd className="figure">{percent(details.data?.recall)}</dd>
        </div>
      </dl>
      <AudienceHistory name={audience.name} history={details.data?.history ?? []} />
      <div className="actions-row">
        <button type="button" onClick={() => download.mutate()} disabled={download.isPending || audience.size === null}>
          Download members (CSV)
        </button>
        {canManage && <ConfirmButton label="Delete" question={`Delete the audience ${audience.name}? Its members and size history go with it.`} pending={remove.isPending} onConfirm={() => remove.mutate()} />}
      </div>
      {download.isError && <ErrorState error={download.error} />}
      {remove.isError && <ErrorState error={remove.error} />}
    </article>
  );
}

/** The latest computation's changes, and the size after each run once there are two or more. */
function AudienceHistory({ name, history }: { name: string; history: AudienceDetails['history'] }) {
  const latest = history.at(-1);
  const chart = useMemo(
    () => ({ times: history.map((entry) => Date.parse(entry.computedAt) / 1000), series: [{ name: 'members', values: history.map((entry) => entry.size) }] }),
    [history],
  );
  if (!latest) return <p className="muted">Not computed yet.</p>;
  return (
    <>
      <p className="muted">
        Computed {when(latest.computedAt)}: {count(latest.entered)} entered and {count(latest.left)} left with that run.
      </p>
      {history.length > 1 && <TimeSeriesChart label={`Members of ${name} after each of its last ${history.length} computations`} times={chart.times} series={chart.series} yLabel="members" />}
    </>
  );
}

function saveCsv(name: string, csv: string): void {
  const link = document.createElement('a');
  link.href = URL.createObjectURL(new Blob([csv], { type: 'text/csv' }));
  link.download = name;
  link.click();
  URL.revokeObjectURL(link.href);
}
