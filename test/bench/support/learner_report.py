"""What bench:train prints of a reference learner, shared by reference_learners.py and generic_features.py."""
import numpy as np
from sklearn.metrics import log_loss, roc_auc_score


def calibration_error(y, p, bins=10):
    """ECE over equal-width bins, the same definition as Foresight's metrics.ts."""
    index = np.minimum((p * bins).astype(int), bins - 1)
    return float(sum(abs(p[index == b].sum() - y[index == b].sum()) for b in range(bins)) / len(y))


def report(y, p, seconds):
    return {
        "auc": float(roc_auc_score(y, p)),
        "logLoss": float(log_loss(y, np.clip(p, 1e-15, 1 - 1e-15))),
        "calibrationError": calibration_error(y, p),
        "fitSeconds": seconds,
    }
