import { useMemo } from 'react';
import uPlot from 'uplot';
import { PALETTE, UPlotChart } from './uplot-chart';

export interface Curve {
  name: string;
  values: Array<number | null>;
  /** Dashed: a reference (perfect calibration), not a measurement. */
  dashed?: boolean;
  /** Drawn as bars (a histogram) standing left of, on, or right of each x, so two series sit side by side. */
  bars?: 'left' | 'centre' | 'right';
  points?: boolean;
}

interface CurveChartProps {
  label: string;
  xs: number[];
  curves: Curve[];
  xLabel: string;
  yLabel: string;
  /** Fixes the y axis to [0, 1] for rates and probabilities. */
  unitY?: boolean;
  /** A vertical marker, e.g. the chosen cutoff. */
  marker?: number;
}

const BAR_PATHS = {
  left: uPlot.paths.bars?.({ size: [0.45, 40], align: -1 }),
  centre: uPlot.paths.bars?.({ size: [0.9, 40], align: 0 }),
  right: uPlot.paths.bars?.({ size: [0.45, 40], align: 1 }),
};

/** y as a function of a number (score, cutoff): lines, points and bars over [0, 1]. */
export function CurveChart({ label, xs, curves, xLabel, yLabel, unitY = false, marker }: CurveChartProps) {
  const { options, data } = useMemo(() => {
    const options: Omit<uPlot.Options, 'width' | 'height'> = {
      scales: { x: { time: false, range: [0, 1] }, y: unitY ? { range: [0, 1] } : { auto: true } },
      axes: [{ label: xLabel }, { label: yLabel, size: 60 }],
      // The legend names the curves; values under the cursor ("--" elsewhere) help no one reading the page.
      legend: { live: false },
      series: [
        { label: xLabel },
        ...curves.map((curve, index) => ({
          label: curve.name,
          stroke: PALETTE[index % PALETTE.length],
          width: curve.bars ? 1 : 2,
          dash: curve.dashed ? [6, 4] : undefined,
          fill: curve.bars ? `${PALETTE[index % PALETTE.length]}99` : undefined,
          paths: curve.bars ? BAR_PATHS[curve.bars] : undefined,
          points: { show: curve.points ?? false, size: 7 },
          spanGaps: !curve.points,
        })),
      ],
      hooks: marker === undefined ? {} : { draw: [(plot: uPlot) => drawMarker(plot, marker)] },
    };
    return { options, data: [xs, ...curves.map((curve) => curve.values)] as uPlot.AlignedData };
  }, [xs, curves, xLabel, yLabel, unitY, marker]);
  return <UPlotChart label={label} options={options} data={data} />;
}

function drawMarker(plot: uPlot, x: number): void {
  const position = plot.valToPos(x, 'x', true);
  const { ctx, bbox } = plot;
  ctx.save();
  ctx.strokeStyle = '#111827';
  ctx.lineWidth = 2;
  ctx.setLineDash([4, 3]);
  ctx.beginPath();
  ctx.moveTo(position, bbox.top);
  ctx.lineTo(position, bbox.top + bbox.height);
  ctx.stroke();
  ctx.restore();
}
