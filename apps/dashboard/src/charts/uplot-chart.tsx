import 'uplot/dist/uPlot.min.css';
import { useEffect, useRef } from 'react';
import uPlot from 'uplot';

export interface UPlotChartProps {
  /** Read by screen readers in place of the drawing; the page also shows the figures as text. */
  label: string;
  options: Omit<uPlot.Options, 'width' | 'height'>;
  data: uPlot.AlignedData;
  height?: number;
}

/** The one place uPlot is created: sized to its container, redrawn when data or options change. */
export function UPlotChart({ label, options, data, height = 220 }: UPlotChartProps) {
  const container = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const element = container.current;
    if (!element) return undefined;
    const plot = new uPlot({ ...options, width: Math.max(element.clientWidth, 240), height }, data, element);
    const resize = new ResizeObserver(() => plot.setSize({ width: Math.max(element.clientWidth, 240), height }));
    resize.observe(element);
    return () => {
      resize.disconnect();
      plot.destroy();
    };
  }, [options, data, height]);
  return <div className="chart" role="img" aria-label={label} ref={container} />;
}

/** Colours with at least 3:1 contrast on white, told apart by more than hue where it matters (dashes). */
export const PALETTE = ['#1f5fbf', '#c2410c', '#047857', '#7e22ce', '#a16207', '#be123c', '#0e7490', '#4d7c0f'];
