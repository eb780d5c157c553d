import { Registry } from 'prom-client';
import { PredictionMetricsService } from './prediction-metrics.service';

describe('PredictionMetricsService', () => {
  it('counts every row of a run and observes each row’s share of its time', async () => {
    const registry = new Registry();
    const metrics = new PredictionMetricsService(registry);
    metrics.inferred('model-a', 2, 3);
    metrics.inferred('model-a', 0.5, 1);
    metrics.cached('model-a');
    const text = await registry.metrics();
    expect(text).toContain('foresight_predictions_total{model_id="model-a",source="inferred"} 4');
    expect(text).toContain('foresight_predictions_total{model_id="model-a",source="cache"} 1');
    expect(text).toContain('foresight_inference_duration_seconds_count{model_id="model-a"} 4');
    const sum = /foresight_inference_duration_seconds_sum\{model_id="model-a"\} (\S+)/.exec(text)?.[1];
    expect(Number(sum)).toBeCloseTo(3 * 0.002 + 0.0005, 12);
    // 2 ms rows fall in the 0.0025 s bucket and above, the 0.5 ms row from 0.0005 s on.
    expect(text).toContain('foresight_inference_duration_seconds_bucket{le="0.001",model_id="model-a"} 1');
    expect(text).toContain('foresight_inference_duration_seconds_bucket{le="0.0025",model_id="model-a"} 4');
  });
});
