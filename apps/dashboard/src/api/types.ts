// The shapes of the /v1 answers the dashboard reads, as the API's OpenAPI document
// (GET /v1/openapi.json) describes them.

export type Scope = 'ingest' | 'read' | 'admin';
export type ModelStatus = 'untrained' | 'active' | 'retraining' | 'failed';
export type Algorithm = 'gbdt' | 'logistic';
export type DriftStatus = 'none' | 'low' | 'moderate' | 'high';

export interface CurrentToken {
  tokenId: string;
  organizationId: string;
  environment: 'dev' | 'staging' | 'prod';
  scopes: Scope[];
  expiresAt: string | null;
}

export interface ModelSummary {
  id: string;
  name: string;
  targetEvent: string;
  status: ModelStatus;
  version: number | null;
  accuracy: number | null;
  lastRetrained: string | null;
  auc: number | null;
  schedule: string | null;
}

export interface ModelDetails extends ModelSummary {
  horizonDays: number;
  algorithm: Algorithm;
  labels: string[];
  precision: number | null;
  recall: number | null;
  featureImportance: Array<{ feature: string; weight: number }>;
  lastError: string | null;
}

export interface CreateModel {
  name: string;
  targetEvent: string;
  horizonDays: number;
  algorithm: Algorithm;
  schedule: string | null;
}

export interface ValidationMetrics {
  rows: number;
  positives: number;
  baseRate: number;
  threshold: number;
  accuracy: number;
  precision: number;
  recall: number;
  auc: number;
  logLoss: number;
}

export interface ThresholdPoint {
  threshold: number;
  precision: number | null;
  recall: number;
  flaggedShare: number;
  truePositives: number;
  falsePositives: number;
  falseNegatives: number;
  trueNegatives: number;
}

export interface ValidationCurves {
  reliability: Array<{ lower: number; upper: number; rows: number; meanPredicted: number | null; observedRate: number | null }>;
  scoreHistogram: { binEdges: number[]; positives: number[]; negatives: number[] };
  thresholds: ThresholdPoint[];
}

export interface ModelVersion {
  version: number;
  state: 'serving' | 'retired' | 'rejected';
  algorithm: Algorithm;
  createdAt: string;
  windowStart: string;
  windowEnd: string;
  trainRows: number;
  validationRows: number;
  metrics: ValidationMetrics;
  featureImportance: Array<{ feature: string; weight: number }>;
  rejectionReason: string | null;
  curves: ValidationCurves | null;
}

export interface MonitoringFigures {
  accuracy: number | null;
  accuracySource: 'live' | 'validation' | null;
  latencyMs: number | null;
  throughput: number;
  drift: { metric: 'confidence_mean'; delta: number; status: DriftStatus };
  psi: number | null;
}

export interface MonitoringPoint extends MonitoringFigures {
  computedAt: string;
  version: number;
  maturedPredictions: number;
  predictions24h: number;
}

export interface EventVolume {
  bucket: 'hour' | 'day';
  since: string;
  until: string;
  series: Array<{ start: string; event: string; count: number }>;
  activeUsers: Array<{ start: string; users: number }>;
  totals: Array<{ event: string; count: number }>;
}

export interface Prediction {
  model: string;
  modelId: string;
  label: string;
  confidence: number;
  version: number;
}

export interface Session {
  sessionId: string;
  derived: boolean;
  startedAt: string;
  endedAt: string;
  durationMs: number;
  eventCount: number;
}

export interface RecentEvent {
  event: string;
  timestamp: string;
  sessionId: string | null;
}

export interface ApiErrorBody {
  error: string;
  message?: string;
}
