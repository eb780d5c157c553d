import { CopyButton } from './copy-button';

/** What a secret lets its holder do, said where it is shown. */
const WHAT_IT_DOES = {
  token: 'Keep it in a secret store; anyone holding it acts as your organization, with its scopes.',
  'signing-secret':
    'Your endpoint uses it to verify that a delivery comes from Foresight (the Signature header; verifyWebhook in @foresight/node does it). It does not let anyone act as your organization, but anyone holding it could sign fake deliveries to your endpoint: keep it in your secret store.',
} as const;

/** A secret the API shows once (a token, a webhook signing secret): a copy button and what it is for. */
export function SecretOnce({ label, secret, kind, onDone }: { label: string; secret: string; kind: keyof typeof WHAT_IT_DOES; onDone: () => void }) {
  return (
    <section className="panel secret" aria-labelledby="secret-heading" role="alert">
      <h2 id="secret-heading">{label}</h2>
      <p>
        <strong>Copy it now: it is shown this once and never again.</strong> {WHAT_IT_DOES[kind]}
      </p>
      <code className="secret-value" aria-label={label}>
        {secret}
      </code>
      <div className="actions-row">
        <CopyButton text={secret} />
        <button type="button" className="secondary" onClick={onDone}>
          I have stored it
        </button>
      </div>
    </section>
  );
}
