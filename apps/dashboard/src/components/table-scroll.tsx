import type { ReactNode } from 'react';

/** A table that scrolls sideways inside its card when wider than the screen; focusable, so the keyboard scrolls it too. */
export function TableScroll({ label, children }: { label: string; children: ReactNode }) {
  return (
    <div className="table-scroll" role="region" aria-label={label} tabIndex={0}>
      {children}
    </div>
  );
}
