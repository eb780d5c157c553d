import { useState } from 'react';

/** A secret the API shows once (a token, a webhook signing secret): a copy button and a warning. */
export function SecretOnce({ label, secret, onDone }: { label: string; secret: string; onDone: () => void }) {
  const [copied, setCopied] = useState(false);
  const copy = () => {
    void navigator.clipboard.writeText(secret).then(
      () => setCopied(true),
      () => setCopied(false),
    );
  };
  return (
    <section className="panel secret" aria-labelledby="secret-heading" role="alert">
      <h2 id="secret-heading">{label}</h2>
      <p>
        <strong>Copy it now: it is shown this once and never again.</strong> Keep it in a secret store; anyone holding it acts as your organization.
      </p>
      <code className="secret-value" aria-label={label}>
        {secret}
      </code>
      <div className="actions-row">
        <button type="button" onClick={copy}>
          {copied ? 'Copied' : 'Copy'}
        </button>
        <button type="button" className="secondary" onClick={onDone}>
          I have stored it
        </button>
      </div>
    </section>
  );
}
