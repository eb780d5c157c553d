"""Reference regressors for bench:train's value models: XGBoost with reg:squarederror and with Tweedie,
fitted on the exact matrix Foresight trains on (float32 row-major features, float32 sums over the
horizon, 0 for users with none), written by the bench.

usage: python3 reference_regressors.py <dir> <features> <threads>
prints one JSON object: {"xgboost squarederror": {...}, "xgboost tweedie": {...}} with mae, rmse, r2, fitSeconds.
"""
import json
import os
import sys
import time

directory, features, threads = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
os.environ["OMP_NUM_THREADS"] = str(threads)

import numpy as np  # noqa: E402
import xgboost  # noqa: E402  (after OMP_NUM_THREADS)
from bench_matrix import load_splits  # noqa: E402  (beside this script)

(x_train, y_train), (x_tune, y_tune), (x_valid, y_valid), (x_all, y_all) = load_splits(directory, features, "amounts", np.float32)
y_train, y_tune, y_valid, y_all = (y.astype(np.float64) for y in (y_train, y_tune, y_valid, y_all))


def metrics(predicted, seconds):
    error = predicted - y_valid
    variance = float(np.sum((y_valid - y_valid.mean()) ** 2))
    return {
        "mae": float(np.mean(np.abs(error))),
        "rmse": float(np.sqrt(np.mean(error**2))),
        "r2": 1 - float(np.sum(error**2)) / variance if variance > 0 else 0.0,
        "fitSeconds": seconds,
    }


results = {}
# As Foresight fits the model it serves: rounds chosen on the tuning split, then refitted on train and tuning.
for name, objective in (("xgboost squarederror", dict(objective="reg:squarederror")), ("xgboost tweedie", dict(objective="reg:tweedie", tweedie_variance_power=1.5))):
    started = time.perf_counter()
    settings = dict(tree_method="hist", learning_rate=0.1, max_depth=6, n_jobs=threads, **objective)
    booster = xgboost.XGBRegressor(n_estimators=1000, early_stopping_rounds=20, **settings)
    booster.fit(x_train, y_train, eval_set=[(x_tune, y_tune)], verbose=False)
    if x_all is not x_train:
        booster = xgboost.XGBRegressor(n_estimators=booster.best_iteration + 1, **settings)
        booster.fit(x_all, y_all, verbose=False)
    results[name] = metrics(booster.predict(x_valid), time.perf_counter() - started)

print(json.dumps(results))
