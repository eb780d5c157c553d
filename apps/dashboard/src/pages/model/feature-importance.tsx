import { percent } from '../../components/format';
import { Empty } from '../../components/states';

/** Horizontal bars as plain HTML: readable by screen readers and selectable as text. */
export function FeatureImportance({ features }: { features: Array<{ feature: string; weight: number }> }) {
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
    <ol className="importance">
      {shown.map(({ feature, weight }) => (
        <li key={feature}>
          <span className="feature">{feature}</span>
          <span className="bar" aria-hidden="true">
            <span style={{ width: `${(weight / top) * 100}%` }} />
          </span>
          <span className="weight">{percent(weight)}</span>
        </li>
      ))}
    </ol>
  );
}
