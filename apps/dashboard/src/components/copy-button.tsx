import { useState } from 'react';

/** Copies a text to the clipboard, and says so. */
export function CopyButton({ text, label = 'Copy', className }: { text: string; label?: string; className?: string }) {
  const [copied, setCopied] = useState(false);
  const copy = () => {
    void navigator.clipboard.writeText(text).then(
      () => setCopied(true),
      () => setCopied(false),
    );
  };
  return (
    <button type="button" className={className} onClick={copy} aria-live="polite">
      {copied ? 'Copied' : label}
    </button>
  );
}
