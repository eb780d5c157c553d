import { useMemo } from 'react';
import type { ValidationCurves } from '../../api/types';
import { CurveChart } from '../../charts/curve-chart';

/** Predicted probability against how often it happened: on the diagonal means calibrated. */
export function ReliabilityDiagram({ curves }: { curves: ValidationCurves }) {
  const { xs, observed, diagonal } = useMemo(() => {
    const bins = curves.reliability.filter((bin) => bin.rows > 0);
    const xs = bins.map((bin) => bin.meanPredicted as number);
    return { xs, observed: bins.map((bin) => bin.observedRate), diagonal: xs };
  }, [curves]);
  return (
    <section className="panel" aria-labelledby="reliability-heading">
      <h2 id="reliability-heading">Are the probabilities honest?</h2>
      <p className="help">Each point is a group of validation users with similar scores: the share who really did it against the score given. Points near the dashed diagonal mean a score of 0.8 comes true about 80% of the time.</p>
      <CurveChart
        label="Reliability diagram: observed rate against mean predicted probability"
        xs={xs}
        curves={[
          { name: 'observed rate', values: observed, points: true },
          { name: 'perfectly calibrated', values: diagonal, dashed: true },
        ]}
        xLabel="predicted probability"
        yLabel="observed rate"
        unitY
      />
    </section>
  );
}

/** How scores spread for users who did it and users who did not: the less they overlap, the better. */
export function ScoreDistribution({ curves, labels }: { curves: ValidationCurves; labels: string[] }) {
  const { xs, positives, negatives } = useMemo(() => {
    const { binEdges, positives, negatives } = curves.scoreHistogram;
    const total = (values: number[]) => Math.max(1, values.reduce((a, b) => a + b, 0));
    return {
      // Bin centres: each bin's two bars stand either side of its middle.
      xs: binEdges.slice(0, -1).map((edge, k) => (edge + binEdges[k + 1]) / 2),
      positives: positives.map((v) => v / total(positives)),
      negatives: negatives.map((v) => v / total(negatives)),
    };
  }, [curves]);
  return (
    <section className="panel" aria-labelledby="distribution-heading">
      <h2 id="distribution-heading">Scores by actual outcome</h2>
      <p className="help">Share of each group per score range. Good models push {labels[1]} users right and {labels[0]} users left.</p>
      <CurveChart
        label="Score distribution by actual outcome"
        xs={xs}
        curves={[
          { name: `did it (${labels[1]})`, values: positives, bars: 'right' },
          { name: `did not (${labels[0]})`, values: negatives, bars: 'left' },
        ]}
        xLabel="score"
        yLabel="share of group"
      />
    </section>
  );
}
