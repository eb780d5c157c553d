"""The matrix bench:train writes for the reference scripts, read once for all of them.

A directory holds, per split (train, tuning when the bench wrote one, validation), `<split>.features`
(float32, row-major, `features` columns) and `<split>.<targets>` (the labels as uint8, or the sums as
float32).
"""
import os

import numpy as np


def load_splits(directory, features, targets, dtype):
    """(train, tuning, validation, refit) as (x, y) pairs. Without a tuning split, tuning is validation
    (early stopping on it, as Foresight does then) and refit is train; otherwise refit is train and
    tuning together, what Foresight refits the served model on once settings are chosen."""

    def load(part):
        x = np.fromfile(os.path.join(directory, f"{part}.features"), dtype=np.float32).reshape(-1, features)
        y = np.fromfile(os.path.join(directory, f"{part}.{targets}"), dtype=dtype)
        return x, y

    train, validation = load("train"), load("validation")
    if not os.path.exists(os.path.join(directory, f"tuning.{targets}")):
        return train, validation, validation, train
    tuning = load("tuning")
    refit = (np.concatenate((train[0], tuning[0])), np.concatenate((train[1], tuning[1])))
    return train, tuning, validation, refit
