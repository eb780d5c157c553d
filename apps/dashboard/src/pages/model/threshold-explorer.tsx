import { useMemo, useState } from 'react';
import type { ValidationCurves } from '../../api/types';
import { CurveChart } from '../../charts/curve-chart';
import { CutoffSlider } from '../../components/cutoff-slider';
import { count, percent } from '../../components/format';
import { href } from '../../routes';

/**
 * Risk tolerance: move the cutoff and see who gets flagged, and what it costs in misses and false alarms.
 * With `audienceModelId` (the serving version, shown to someone who may define audiences) the cutoff
 * becomes an audience in one step.
 */
export function ThresholdExplorer({ curves, labels, audienceModelId }: { curves: ValidationCurves; labels: string[]; audienceModelId: string | null }) {
  const points = curves.thresholds;
  const [index, setIndex] = useState(() => points.findIndex((p) => p.threshold >= 0.5));
  const chosen = points[index];
  const lines = useMemo(
    () => ({
      xs: points.map((p) => p.threshold),
      curves: [
        { name: 'precision', values: points.map((p) => p.precision) },
        { name: 'recall', values: points.map((p) => p.recall) },
        { name: 'share flagged', values: points.map((p) => p.flaggedShare), dashed: true },
      ],
    }),
    [points],
  );
  return (
    <section className="panel" aria-labelledby="threshold-heading">
      <h2 id="threshold-heading">Choose a cutoff</h2>
      <p className="help">Users scored above the cutoff are flagged {labels[1]}. A low cutoff catches more of them (recall) but flags more users who will not (precision drops).</p>
      <CutoffSlider steps={points.length} step={index} onStep={setIndex} valueText={`cutoff ${chosen.threshold.toFixed(2)}: flags ${percent(chosen.flaggedShare)} of users`}>
        Cutoff: <strong>{chosen.threshold.toFixed(2)}</strong>
      </CutoffSlider>
      <CurveChart label="Precision, recall and share of users flagged by cutoff" xs={lines.xs} curves={lines.curves} xLabel="cutoff" yLabel="rate" unitY marker={chosen.threshold} />
      <p>
        At {chosen.threshold.toFixed(2)} the model flags <strong>{percent(chosen.flaggedShare)}</strong> of users; <strong>{percent(chosen.precision)}</strong> of them really do it, and it catches{' '}
        <strong>{percent(chosen.recall)}</strong> of those who do.
      </p>
      {audienceModelId && chosen.flaggedShare > 0 && (
        <p>
          <a href={href({ page: 'audiences', modelId: audienceModelId, cutoff: chosen.threshold })}>Define an audience of the users flagged at {chosen.threshold.toFixed(2)}</a>: a list of them to download or to
          hear about by webhook, kept up to date by each bulk scoring run.
        </p>
      )}
      {audienceModelId && chosen.flaggedShare === 0 && <p className="muted">Nobody is flagged at this cutoff: lower it to define an audience of the users it flags.</p>}
      <table className="confusion">
        <caption>Validation users at cutoff {chosen.threshold.toFixed(2)}</caption>
        <thead>
          <tr>
            <td />
            <th scope="col">Flagged {labels[1]}</th>
            <th scope="col">Not flagged</th>
          </tr>
        </thead>
        <tbody>
          <tr>
            <th scope="row">Did it</th>
            <td className="good">{count(chosen.truePositives)} caught</td>
            <td className="bad">{count(chosen.falseNegatives)} missed</td>
          </tr>
          <tr>
            <th scope="row">Did not</th>
            <td className="bad">{count(chosen.falsePositives)} false alarms</td>
            <td className="good">{count(chosen.trueNegatives)} rightly left out</td>
          </tr>
        </tbody>
      </table>
    </section>
  );
}
