import type { TrainingSet } from '../training';

/** Grows feature rows in one Float32Array (no per-row objects), then hands them over as a TrainingSet. */
export class RowBuffer {
  private features: Float32Array;
  private labels: Uint8Array;
  /** Per row, the amount a `value` model regresses; null for the other kinds. */
  private amounts: Float32Array | null;
  private rows = 0;

  constructor(
    private readonly width: number,
    withAmounts = false,
  ) {
    this.features = new Float32Array(width * 1024);
    this.labels = new Uint8Array(1024);
    this.amounts = withAmounts ? new Float32Array(1024) : null;
  }

  get length(): number {
    return this.rows;
  }

  push(vector: Float32Array, label: boolean, amount = 0): void {
    if (this.rows === this.labels.length) {
      const features = new Float32Array(this.features.length * 2);
      features.set(this.features);
      const labels = new Uint8Array(this.labels.length * 2);
      labels.set(this.labels);
      this.features = features;
      this.labels = labels;
      if (this.amounts) {
        const amounts = new Float32Array(this.amounts.length * 2);
        amounts.set(this.amounts);
        this.amounts = amounts;
      }
    }
    if (this.amounts) this.amounts[this.rows] = amount;
    this.features.set(vector, this.rows * this.width);
    this.labels[this.rows++] = label ? 1 : 0;
  }

  toSet(featureNames: string[]): TrainingSet {
    const set: TrainingSet = { features: this.features.slice(0, this.rows * this.width), labels: this.labels.slice(0, this.rows), featureNames };
    if (this.amounts) set.amounts = this.amounts.slice(0, this.rows);
    return set;
  }
}
