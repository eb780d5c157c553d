import { useMemo } from 'react';
import type uPlot from 'uplot';
import { timeRange, valueRange } from './ranges';
import { PALETTE, UPlotChart } from './uplot-chart';

export interface TimeSeries {
  name: string;
  values: Array<number | null>;
  /** Dashed lines mark thresholds and references, not measurements. */
  dashed?: boolean;
}

/** A horizontal band of the y axis, from `from` up to the next band (or the top): a severity level, drawn behind the series. */
export interface ValueBand {
  from: number;
  label: string;
  colour: string;
}

interface TimeSeriesChartProps {
  label: string;
  /** Unix seconds, ascending. */
  times: number[];
  series: TimeSeries[];
  /** Each series is drawn on top of the ones before it, filled down to them (events by name). */
  stacked?: boolean;
  yLabel?: string;
  /** Severity bands behind the series (drift levels), lowest first. */
  bands?: ValueBand[];
  /** Values the y axis always shows, e.g. [0, 0.35] so every band is in view. */
  yCovers?: [number, number];
  /** Unix seconds from which the window is unfinished (the current hour or day): shaded and labelled "so far". */
  partialFrom?: number | null;
}

/** Few points are drawn as dots too: a line needs two points, and a lone point must not vanish. */
const DOTS_UP_TO = 40;

/** Values over time: lines, or stacked areas; one or two points keep a sensible time axis. */
export function TimeSeriesChart({ label, times, series, stacked = false, yLabel, bands, yCovers, partialFrom = null }: TimeSeriesChartProps) {
  const { options, data } = useMemo(() => {
    const drawn = stacked ? stack(series) : series;
    const options: Omit<uPlot.Options, 'width' | 'height'> = {
      scales: {
        // From the data itself: with one point uPlot proposes a day in milliseconds read as seconds (years).
        x: { time: true, range: () => timeRange(times[0] ?? null, times[times.length - 1] ?? null) },
        y: { range: (_plot, min, max) => valueRange(min, max, yCovers) },
      },
      axes: [{}, { label: yLabel, size: 60 }],
      // The legend names the series; values under the cursor ("--" elsewhere) help no one reading the page.
      legend: { show: true, live: false },
      series: [
        {},
        ...drawn.map((s, index) => ({
          label: s.name,
          stroke: PALETTE[index % PALETTE.length],
          width: 2,
          dash: s.dashed ? [6, 4] : undefined,
          fill: stacked ? `${PALETTE[index % PALETTE.length]}cc` : undefined,
          spanGaps: true,
          points: { show: times.length <= DOTS_UP_TO, size: 7 },
        })),
      ],
      hooks: {
        drawAxes: bands ? [(plot: uPlot) => drawBands(plot, bands)] : [],
        draw: partialFrom === null ? [] : [(plot: uPlot) => drawPartial(plot, partialFrom)],
      },
    };
    return { options, data: [times, ...drawn.map((s) => s.values)] as uPlot.AlignedData };
  }, [times, series, stacked, yLabel, bands, yCovers, partialFrom]);
  return <UPlotChart label={label} options={options} data={data} />;
}

/** Cumulative sums, the largest first, so each filled area is drawn over the larger ones behind it. */
function stack(series: TimeSeries[]): TimeSeries[] {
  const totals: TimeSeries[] = [];
  let running: number[] = [];
  for (const s of series) {
    running = s.values.map((value, k) => (running[k] ?? 0) + (value ?? 0));
    totals.push({ name: s.name, values: running });
  }
  return totals.reverse();
}

/** Each band as a translucent stripe across the whole plot, its name at its left edge. */
function drawBands(plot: uPlot, bands: ValueBand[]): void {
  const { ctx, bbox } = plot;
  const top = plot.scales.y.max ?? 1;
  ctx.save();
  ctx.font = `${Math.round(11 * devicePixelRatio)}px system-ui, sans-serif`;
  ctx.textAlign = 'left';
  ctx.textBaseline = 'top';
  bands.forEach((band, k) => {
    const upper = Math.min(bands[k + 1]?.from ?? top, top);
    if (band.from >= top) return;
    const y0 = plot.valToPos(upper, 'y', true);
    const y1 = plot.valToPos(band.from, 'y', true);
    ctx.fillStyle = band.colour;
    ctx.fillRect(bbox.left, y0, bbox.width, y1 - y0);
    ctx.fillStyle = '#374151';
    ctx.fillText(band.label, bbox.left + 4 * devicePixelRatio, y0 + 2 * devicePixelRatio);
  });
  ctx.restore();
}

/** Hatches the unfinished part of the window, so a low last value reads as "not over yet", not as a drop. */
function drawPartial(plot: uPlot, from: number): void {
  const { ctx, bbox } = plot;
  const x = Math.max(plot.valToPos(from, 'x', true), bbox.left);
  const right = bbox.left + bbox.width;
  if (x >= right) return;
  ctx.save();
  ctx.fillStyle = 'rgba(107, 114, 128, 0.18)';
  ctx.fillRect(x, bbox.top, right - x, bbox.height);
  ctx.fillStyle = '#374151';
  ctx.font = `${Math.round(11 * devicePixelRatio)}px system-ui, sans-serif`;
  ctx.textAlign = 'right';
  ctx.textBaseline = 'top';
  ctx.fillText('so far', right - 3 * devicePixelRatio, bbox.top + 3 * devicePixelRatio);
  ctx.restore();
}
