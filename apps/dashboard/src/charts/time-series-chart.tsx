import { useMemo } from 'react';
import type uPlot from 'uplot';
import { PALETTE, UPlotChart } from './uplot-chart';

export interface TimeSeries {
  name: string;
  values: Array<number | null>;
  /** Dashed lines mark thresholds and bands, not measurements. */
  dashed?: boolean;
}

interface TimeSeriesChartProps {
  label: string;
  /** Unix seconds, ascending. */
  times: number[];
  series: TimeSeries[];
  /** Each series is drawn on top of the ones before it, filled down to them (events by name). */
  stacked?: boolean;
  yLabel?: string;
}

/** Values over time: lines, or stacked areas. */
export function TimeSeriesChart({ label, times, series, stacked = false, yLabel }: TimeSeriesChartProps) {
  const { options, data } = useMemo(() => {
    const drawn = stacked ? stack(series) : series;
    const options: Omit<uPlot.Options, 'width' | 'height'> = {
      scales: { x: { time: true } },
      axes: [{}, { label: yLabel, size: 60 }],
      legend: { show: true },
      series: [
        {},
        ...drawn.map((s, index) => ({
          label: s.name,
          stroke: PALETTE[index % PALETTE.length],
          width: 2,
          dash: s.dashed ? [6, 4] : undefined,
          fill: stacked ? `${PALETTE[index % PALETTE.length]}cc` : undefined,
          spanGaps: true,
        })),
      ],
    };
    return { options, data: [times, ...drawn.map((s) => s.values)] as uPlot.AlignedData };
  }, [times, series, stacked, yLabel]);
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
