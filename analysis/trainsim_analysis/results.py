"""A results table of `trainsim sweep`, `trainsim batch` or `trainsim plan` (DIR/results.csv or
DIR/results.h5) as one pandas DataFrame, and the layouts in it ranked so that one that does not
fit in GPU memory is never taken for the best (issue 55).

Columns (both formats give the same): point, the varied keys (their names, e.g. parallel.tp, as
text), status (ok, does_not_fit, skipped, failed, pending), reason, fits (a nullable boolean:
<NA> where the point was not simulated), capacity_bytes and headroom_bytes (the GPU's memory and
that less the peak: negative when it does not fit), every summary metric (step_time_s,
tokens_per_s, mfu, peak_memory_bytes, ...), trace."""

from pathlib import Path

import numpy as np
import pandas as pd

#: The columns every results table carries about each point's memory (sim/sweep/result_columns.hpp).
FIT_COLUMNS = ("fits", "capacity_bytes", "headroom_bytes")

#: Statuses of simulated points: every metric is there.
SIMULATED = ("ok", "does_not_fit")


def _text(values) -> list:
    return [v.decode() if isinstance(v, bytes) else str(v) for v in values]


def _fits(values: pd.Series) -> pd.Series:
    """"true"/"false"/"" (or NaN) as a nullable boolean."""
    text = values.astype("string").str.strip().str.lower()
    return text.map({"true": True, "false": False}).astype("boolean")


# Text columns of every table; the varied values are text too, as given.
TEXT_COLUMNS = ("status", "reason", "trace", "fits", "validation_family", "caveats")


def _from_h5(path: str) -> pd.DataFrame:
    import h5py

    with h5py.File(path, "r") as f:
        table = {"point": f["point"][()].astype(np.int64)}
        parameters = [p for p in str(f.attrs["parameters"]).split(",") if p]
        for name in parameters:
            table[name] = _text(f["params"][name][()])
        table["status"] = _text(f["status"][()])
        table["reason"] = _text(f["reason"][()])
        columns = [c for c in str(f.attrs.get("columns", "")).split(",") if c]
        for name in columns:
            data = f[name][()]
            table[name] = _text(data) if data.dtype.kind in "OSU" else data.astype(np.float64)
        for name in [m for m in str(f.attrs["metrics"]).split(",") if m]:
            table[name] = f["metrics"][name][()].astype(np.float64)
        table["trace"] = _text(f["trace"][()])
        for name in ("validation_family", "caveats"):  # newer tables (accuracy caveats)
            if name in f:
                table[name] = _text(f[name][()])
    return pd.DataFrame(table)


def load_results(path) -> pd.DataFrame:
    """DIR/results.csv or DIR/results.h5 (or the folder: its results.csv) as a DataFrame. A table
    from a build before the fit columns has them as <NA>."""
    path = Path(path)
    if path.is_dir():
        path = path / "results.csv"
    if path.suffix == ".h5":
        table = _from_h5(str(path))
    else:
        # Varied values stay text, as given (1f1b, interleaved, 8).
        table = pd.read_csv(path, dtype=str, keep_default_na=False)
        numeric = [c for c in table.columns
                   if c not in TEXT_COLUMNS and c not in _parameters(table)]
        for c in numeric:
            table[c] = pd.to_numeric(table[c].replace("", np.nan))
        table["point"] = table["point"].astype(np.int64)
    for name in FIT_COLUMNS:
        if name not in table:
            table[name] = pd.NA
    table["fits"] = _fits(table["fits"])
    for name in ("capacity_bytes", "headroom_bytes"):
        table[name] = pd.to_numeric(table[name]).astype(np.float64)
    return table


def _parameters(table: pd.DataFrame) -> list:
    """The varied keys of a CSV table: the columns between point and status."""
    columns = list(table.columns)
    return columns[1:columns.index("status")] if "status" in columns else []


def rank_layouts(table: pd.DataFrame, by: str = "tokens_per_s", ascending: bool = False) -> pd.DataFrame:
    """The simulated rows, the ones that fit first, best by `by` (highest first unless
    `ascending`, e.g. step_time_s), then the ones that do not fit (status does_not_fit, or fits
    False), by `by` too. Column `rank` numbers the ones that fit from 1 and is <NA> for the others,
    so that a layout that needs more memory than the GPU has is never ranked among them. Rows that
    were not simulated (skipped, failed, pending) are left out."""
    simulated = table[table["status"].isin(SIMULATED)].copy()
    fits = simulated["fits"].fillna(True) if "fits" in simulated else pd.Series(True, index=simulated.index)
    ok = (simulated["status"] == "ok") & fits.astype(bool)
    good = simulated[ok].sort_values(by, ascending=ascending, kind="stable")
    bad = simulated[~ok].sort_values(by, ascending=ascending, kind="stable")
    good = good.assign(rank=pd.array(range(1, len(good) + 1), dtype="Int64"))
    bad = bad.assign(rank=pd.array([pd.NA] * len(bad), dtype="Int64"))
    return pd.concat([good, bad]).reset_index(drop=True)


def best_layout(table: pd.DataFrame, by: str = "tokens_per_s", ascending: bool = False) -> pd.Series:
    """The best row that fits (rank_layouts' rank 1). ValueError when none fits."""
    ranked = rank_layouts(table, by, ascending)
    fitting = ranked[ranked["rank"].notna()]
    if fitting.empty:
        raise ValueError("no simulated layout fits in GPU memory "
                         f"({int((table['status'] == 'does_not_fit').sum())} do not fit)")
    return fitting.iloc[0]
