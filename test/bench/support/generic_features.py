"""The generic-features reference of bench:train: features a data scientist writes without knowing the
generator, computed from the raw events, fitted with scikit-learn HistGradientBoosting and
LogisticRegression on the rows of Foresight's matrix (same users, cutoffs, labels and split).

usage: python3 generic_features.py <dir> <threads> <first validation cutoff, epoch ms>
<dir>/events.tsv: user, epoch ms, session id, event, properties JSON (sorted by user, then time)
<dir>/rows.tsv:   user, cutoff (epoch ms), label (0/1), part (train|tuning|validation)
prints one JSON object: {"learners": {"generic HistGB": {...}, "generic LogReg": {...}}, "features": n}

Every feature of a row reads only events before its cutoff. Which event names, property values and
numeric properties are described is decided from events before the first validation cutoff.
"""
import json
import os
import sys
import time

import numpy as np

directory, threads, vocabulary_until = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
os.environ["OMP_NUM_THREADS"] = str(threads)

from sklearn.ensemble import HistGradientBoostingClassifier  # noqa: E402  (after OMP_NUM_THREADS)
from sklearn.linear_model import LogisticRegression  # noqa: E402
from learner_report import report  # noqa: E402  (beside this script)
from sklearn.pipeline import make_pipeline  # noqa: E402
from sklearn.preprocessing import StandardScaler  # noqa: E402

DAY = 86_400_000
COUNT_WINDOWS = (1, 7, 14, 30)
VALUE_WINDOWS = (7, 30)
WEEKS = 4
SESSION_GAP = 30 * 60_000
MAX_VALUES_PER_PROPERTY = 50
MAX_VALUE_TOKENS = 300
MAX_NUMERIC = 8
NO_EVENT_DAYS = 90.0

# --- the events: one token list per event (its name, and each low-cardinality string property value)
users, times, sessions, names, props = [], [], [], [], []
with open(os.path.join(directory, "events.tsv"), encoding="utf8") as f:
    for line in f:
        user, at, session, event, properties = line.rstrip("\n").split("\t", 4)
        users.append(user)
        times.append(int(at))
        sessions.append(session)
        names.append(event)
        props.append(json.loads(properties))
times = np.array(times, dtype=np.int64)
in_vocabulary = times < vocabulary_until

# Low-cardinality string properties per event, and the numeric ones (durations, amounts), seen before the holdout.
values_seen, numeric_seen = {}, {}
for event, p, known in zip(names, props, in_vocabulary):
    if not known:
        continue
    for key, value in p.items():
        if isinstance(value, str):
            values_seen.setdefault((event, key), {}).setdefault(value, 0)
            values_seen[(event, key)][value] += 1
        elif isinstance(value, (int, float)) and not isinstance(value, bool):
            numeric_seen[(event, key)] = numeric_seen.get((event, key), 0) + 1
value_tokens = sorted(
    ((count, f"{event}.{key}={value}") for (event, key), values in values_seen.items() if len(values) <= MAX_VALUES_PER_PROPERTY for value, count in values.items()),
    reverse=True,
)[:MAX_VALUE_TOKENS]
value_tokens = sorted(token for _, token in value_tokens)
numeric_keys = [key for key, _ in sorted(numeric_seen.items(), key=lambda item: -item[1])[:MAX_NUMERIC]]
event_names = sorted({event for event, known in zip(names, in_vocabulary) if known})

user_ids = {user: i for i, user in enumerate(dict.fromkeys(users))}
user_index = np.array([user_ids[u] for u in users], dtype=np.int64)
origin = int(times.min()) if len(times) else 0
# One sortable key per event: user, then time (events arrive sorted by both).
keys = user_index * (1 << 40) + (times - origin)


token_positions = {f"event:{name}": [] for name in event_names}
for token in value_tokens:
    token_positions[f"value:{token}"] = []
for i, (event, p) in enumerate(zip(names, props)):
    positions = token_positions.get(f"event:{event}")
    if positions is not None:
        positions.append(i)
    for key, value in p.items():
        if isinstance(value, str):
            positions = token_positions.get(f"value:{event}.{key}={value}")
            if positions is not None:
                positions.append(i)
starts_session = np.ones(len(names), dtype=bool)
starts_session[1:] = (user_index[1:] != user_index[:-1]) | np.array(
    [(s != prev_s) if s and prev_s else (t - prev_t > SESSION_GAP) for s, prev_s, t, prev_t in zip(sessions[1:], sessions[:-1], times[1:], times[:-1])], dtype=bool
)
days = times // DAY
starts_day = np.ones(len(names), dtype=bool)
starts_day[1:] = (user_index[1:] != user_index[:-1]) | (days[1:] != days[:-1])
weekend = np.isin(((days + 4) % 7), (0, 6))  # 1970-01-01 was a Thursday: (day + 4) % 7 is 0 on Sundays

# --- the rows
row_users, row_cutoffs, labels, parts = [], [], [], []
with open(os.path.join(directory, "rows.tsv"), encoding="utf8") as f:
    for line in f:
        user, cutoff, label, part = line.rstrip("\n").split("\t")
        row_users.append(user_ids.get(user, -1))
        row_cutoffs.append(int(cutoff))
        labels.append(int(label))
        parts.append(part)
row_users = np.array(row_users, dtype=np.int64)
row_cutoffs = np.array(row_cutoffs, dtype=np.int64)
labels = np.array(labels, dtype=np.uint8)
parts = np.array(parts)
row_keys = row_users * (1 << 40) + (row_cutoffs - origin)


def count_in(subset_keys, days_back, days_end=0):
    """Events of the subset in [cutoff - days_back, cutoff - days_end) for every row."""
    return (np.searchsorted(subset_keys, row_keys - days_end * DAY) - np.searchsorted(subset_keys, row_keys - days_back * DAY)).astype(np.float64)


columns, column_names = [], []


def add(name, values):
    column_names.append(name)
    columns.append(values)


for token, positions in token_positions.items():
    subset = keys[np.array(positions, dtype=np.int64)]
    for window in COUNT_WINDOWS if token.startswith("event:") else VALUE_WINDOWS:
        add(f"{token} {window}d", count_in(subset, window))
    # Recency of each kind of event (within the exported history).
    if token.startswith("event:"):
        before = np.searchsorted(subset, row_keys) - 1
        last = np.where(before >= 0, subset[np.maximum(before, 0)], -1)
        same_user = (before >= 0) & ((last >> 40) == row_users)
        add(f"{token} days since", np.where(same_user, (row_keys - last) / DAY, NO_EVENT_DAYS))

for name, flags in (("events", np.ones(len(names), dtype=bool)), ("sessions", starts_session), ("active days", starts_day)):
    subset = keys[flags]
    weekly = np.stack([count_in(subset, 7 * (w + 1), 7 * w) for w in range(WEEKS)], axis=1)
    for w in range(WEEKS):
        add(f"{name} week -{w + 1}", weekly[:, w])
    # Trend across weeks: least-squares slope (newest week last) and the last week against the three before.
    x = np.arange(WEEKS)[::-1] - (WEEKS - 1) / 2
    add(f"{name} weekly slope", weekly @ x / (x @ x))
    add(f"{name} last week / before", weekly[:, 0] / (1 + weekly[:, 1:].mean(axis=1)))

all_keys = keys
before = np.searchsorted(all_keys, row_keys) - 1
add("days since last event", np.where(before >= 0, (row_keys - all_keys[np.maximum(before, 0)]) / DAY, NO_EVENT_DAYS))
first = np.searchsorted(all_keys, row_users * (1 << 40))
add("days since first event", np.where(first < len(all_keys), (row_keys - all_keys[np.minimum(first, len(all_keys) - 1)]) / DAY, 0))
add("weekend share 30d", count_in(all_keys[weekend], 30) / np.maximum(count_in(all_keys, 30), 1))

# Robust summaries of numeric properties (durations are heavy-tailed): median and mean of log1p over 30 days.
for event, key in numeric_keys:
    positions = [i for i, (n, p) in enumerate(zip(names, props)) if n == event and isinstance(p.get(key), (int, float)) and not isinstance(p.get(key), bool)]
    subset = keys[positions]
    values = np.log1p(np.maximum(np.array([float(props[i][key]) for i in positions]), 0))
    cumulative = np.concatenate(([0.0], np.cumsum(values)))
    lo, hi = np.searchsorted(subset, row_keys - 30 * DAY), np.searchsorted(subset, row_keys)
    add(f"{event}.{key} mean log 30d", np.where(hi > lo, (cumulative[hi] - cumulative[lo]) / np.maximum(hi - lo, 1), 0))
    add(f"{event}.{key} median log 30d", np.array([np.median(values[a:b]) if b > a else 0.0 for a, b in zip(lo, hi)]))

features = np.stack(columns, axis=1)


# --- the learners, on Foresight's split: fitted on the rows Foresight's served model is fitted on (train and tuning)
train, validation = parts != "validation", parts == "validation"
results = {}
started = time.perf_counter()
# scikit-learn's defaults (100 iterations; early stopping on a share of the training rows above 10,000 rows).
forest = HistGradientBoostingClassifier(random_state=0)
forest.fit(features[train], labels[train])
results["generic HistGB"] = report(labels[validation], forest.predict_proba(features[validation])[:, 1], time.perf_counter() - started)

# Counts are heavy-tailed too: the linear model sees them through a signed log, then standardized.
signed_log = np.sign(features) * np.log1p(np.abs(features))
started = time.perf_counter()
linear = make_pipeline(StandardScaler(), LogisticRegression(max_iter=2000))
linear.fit(signed_log[train], labels[train])
results["generic LogReg"] = report(labels[validation], linear.predict_proba(signed_log[validation])[:, 1], time.perf_counter() - started)

print(json.dumps({"learners": results, "features": len(column_names)}))
