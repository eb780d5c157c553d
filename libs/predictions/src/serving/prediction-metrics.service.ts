import { Injectable } from '@nestjs/common';
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { LruFigures } from './session-lru';

/** Prometheus figures of serving, labelled by model id (names repeat across organizations; user ids never appear). */
@Injectable()
export class PredictionMetricsService {
  private readonly served: Counter<'model_id' | 'source'>;
  private readonly inference: Histogram<'model_id'>;
  private readonly sessions: Gauge;
  private readonly sessionBytes: Gauge;
  private readonly evictions: Counter;

  constructor(registry: Registry) {
    this.served = new Counter({
      name: 'foresight_predictions_total',
      help: 'Predictions served, fresh (inferred and logged) or from the cache',
      labelNames: ['model_id', 'source'] as const,
      registers: [registry],
    });
    this.inference = new Histogram({
      name: 'foresight_inference_duration_seconds',
      help: 'ONNX Runtime session.run time per prediction',
      labelNames: ['model_id'] as const,
      buckets: [0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025],
      registers: [registry],
    });
    this.sessions = new Gauge({ name: 'foresight_serving_sessions', help: 'ONNX Runtime sessions kept loaded for serving (SERVING_MODEL_MEMORY_MB)', registers: [registry] });
    this.sessionBytes = new Gauge({
      name: 'foresight_serving_session_bytes',
      help: 'Estimated memory of the serving sessions held: those kept, and those evicted while a run still used them',
      registers: [registry],
    });
    this.evictions = new Counter({
      name: 'foresight_serving_session_evictions_total',
      help: 'Serving sessions released to stay within SERVING_MODEL_MEMORY_MB (loaded again when asked for)',
      registers: [registry],
    });
  }

  sessionsHeld({ entries, bytes, drainingBytes }: LruFigures): void {
    this.sessions.set(entries);
    this.sessionBytes.set(bytes + drainingBytes);
  }

  sessionEvicted(): void {
    this.evictions.inc();
  }

  /** `rows` predictions of one model from one run, each taking `millisecondsPerRow` of it. */
  inferred(modelId: string, millisecondsPerRow: number, rows: number): void {
    this.served.inc({ model_id: modelId, source: 'inferred' }, rows);
    const inference = this.inference.labels({ model_id: modelId });
    for (let i = 0; i < rows; i++) inference.observe(millisecondsPerRow / 1000);
  }

  cached(modelId: string): void {
    this.served.inc({ model_id: modelId, source: 'cache' });
  }
}
