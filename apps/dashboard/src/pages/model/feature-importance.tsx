import type { FeatureWeight } from '../../api/types';
import { percent } from '../../components/format';
import { Empty } from '../../components/states';

/** Horizontal bars as plain HTML: readable by screen readers and selectable as text. */
const DIRECTION_WORDS = { raises: '↑ raises', lowers: '↓ lowers', none: 'no effect' } as const;

export function FeatureImportance({ features }: { features: FeatureWeight[] }) {
  const shown = features.filter((f) => f.weight > 0).slice(0, 12);
  if (shown.length === 0) {
    return (
      <Empty title="No feature matters">
        <p>The model ignores every feature: it predicts the base rate. More varied events usually help.</p>
      </Empty>
    );
  }
  const top = shown[0].weight;
  return (
    <>
      <p className="help">How much each feature weighs in the prediction, and whether a higher value raises or lowers the probability (the overall tendency on the validation users).</p>
      <ol className="importance">
      {shown.map(({ feature, label, weight, direction }) => (
        <li key={feature}>
          {/* The words, with the id an engineer greps for on hover. */}
          <span className="feature" title={feature}>
            {label}
          </span>
          <span className={`direction ${direction ?? ''}`}>{direction ? DIRECTION_WORDS[direction] : '—'}</span>
          <span className="bar" aria-hidden="true">
            <span style={{ width: `${(weight / top) * 100}%` }} />
          </span>
          <span className="weight">{percent(weight)}</span>
        </li>
      ))}
      </ol>
    </>
  );
}
