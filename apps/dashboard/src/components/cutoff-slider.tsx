import { type ReactNode, useId } from 'react';

/**
 * A slider over a model's validation cutoffs (one step per stored threshold point): the model page's
 * cutoff explorer and the audience form move the same way.
 */
export function CutoffSlider({ children, steps, step, onStep, valueText }: { children: ReactNode; steps: number; step: number; onStep: (step: number) => void; valueText: string }) {
  const id = useId();
  return (
    <>
      <label htmlFor={id}>{children}</label>
      <input id={id} type="range" min={0} max={steps - 1} step={1} value={step} onChange={(e) => onStep(Number(e.target.value))} aria-valuetext={valueText} />
    </>
  );
}
