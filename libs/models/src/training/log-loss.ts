/** log(1 + e^m) without overflow for large |m|. */
export function softplus(m: number): number {
  return m > 0 ? m + Math.log1p(Math.exp(-m)) : Math.log1p(Math.exp(m));
}

export function sigmoid(m: number): number {
  return m >= 0 ? 1 / (1 + Math.exp(-m)) : Math.exp(m) / (1 + Math.exp(m));
}

/** Binary log loss of one example computed from its margin, exact even when p rounds to 0 or 1. */
export function marginLogLoss(margin: number, label: number): number {
  return softplus(margin) - label * margin;
}
