import type { TrainingSet } from '../training';

/** Grows feature rows in one Float32Array (no per-row objects), then hands them over as a TrainingSet. */
export class RowBuffer {
  private features: Float32Array;
  private labels: Uint8Array;
  private rows = 0;

  constructor(private readonly width: number) {
    this.features = new Float32Array(width * 1024);
    this.labels = new Uint8Array(1024);
  }

  get length(): number {
    return this.rows;
  }

  push(vector: Float32Array, label: boolean): void {
    if (this.rows === this.labels.length) {
      const features = new Float32Array(this.features.length * 2);
      features.set(this.features);
      const labels = new Uint8Array(this.labels.length * 2);
      labels.set(this.labels);
      this.features = features;
      this.labels = labels;
    }
    this.features.set(vector, this.rows * this.width);
    this.labels[this.rows++] = label ? 1 : 0;
  }

  toSet(featureNames: string[]): TrainingSet {
    return { features: this.features.slice(0, this.rows * this.width), labels: this.labels.slice(0, this.rows), featureNames };
  }
}
