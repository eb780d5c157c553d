"""Reference learners for bench:train: XGBoost (hist) and scikit-learn HistGradientBoosting, fitted on
the exact matrix Foresight trains on (float32 row-major features, uint8 labels, written by the bench).

usage: python3 reference_learners.py <dir> <features> <threads>
prints one JSON object: {"xgboost": {...}, "sklearn": {...}} with auc, logLoss, calibrationError, fitSeconds.
"""
import json
import os
import sys
import time

directory, features, threads = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
os.environ["OMP_NUM_THREADS"] = str(threads)

import numpy as np  # noqa: E402
import xgboost  # noqa: E402  (after OMP_NUM_THREADS, which sklearn's OpenMP reads at import)
from sklearn.ensemble import HistGradientBoostingClassifier  # noqa: E402
from bench_matrix import load_splits  # noqa: E402  (beside this script)
from learner_report import report  # noqa: E402

# Early stopping on the tuning split when the bench wrote one (as Foresight does), else on validation.
# Fitted as Foresight fits the model it serves: settings chosen on the tuning split, then refitted on
# train and tuning together; validation only measures.
(x_train, y_train), (x_tune, y_tune), (x_valid, y_valid), (x_all, y_all) = load_splits(directory, features, "labels", np.uint8)
results = {}

# XGBoost as a data scientist runs it: hist, early stopping on a time-based holdout, refit on every row.
started = time.perf_counter()
settings = dict(tree_method="hist", learning_rate=0.1, max_depth=6, n_jobs=threads)
booster = xgboost.XGBClassifier(n_estimators=1000, early_stopping_rounds=20, eval_metric="logloss", **settings)
booster.fit(x_train, y_train, eval_set=[(x_tune, y_tune)], verbose=False)
if x_all is not x_train:
    booster = xgboost.XGBClassifier(n_estimators=booster.best_iteration + 1, **settings)
    booster.fit(x_all, y_all, verbose=False)
results["xgboost"] = report(y_valid, booster.predict_proba(x_valid)[:, 1], time.perf_counter() - started)

# scikit-learn's defaults, with its own early stopping on a share of the rows it is given.
started = time.perf_counter()
forest = HistGradientBoostingClassifier(max_iter=1000, early_stopping=True, random_state=0)
forest.fit(x_all, y_all)
results["sklearn"] = report(y_valid, forest.predict_proba(x_valid)[:, 1], time.perf_counter() - started)

print(json.dumps(results))
