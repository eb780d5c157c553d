import { type ReactNode, useState } from 'react';

/** A dangerous action behind a second, explicit click; Escape or Cancel backs out. */
export function ConfirmButton({ label, question, pending, onConfirm }: { label: string; question: ReactNode; pending: boolean; onConfirm: () => void }) {
  const [confirming, setConfirming] = useState(false);
  if (!confirming) {
    return (
      <button type="button" className="danger" onClick={() => setConfirming(true)}>
        {label}
      </button>
    );
  }
  return (
    <div className="confirm" role="alertdialog" aria-label={`Confirm: ${label}`} onKeyDown={(e) => e.key === 'Escape' && setConfirming(false)}>
      <p>{question}</p>
      <button type="button" className="danger" onClick={onConfirm} disabled={pending}>
        Yes, {label.toLowerCase()}
      </button>
      <button type="button" className="secondary" onClick={() => setConfirming(false)} disabled={pending}>
        Cancel
      </button>
    </div>
  );
}
