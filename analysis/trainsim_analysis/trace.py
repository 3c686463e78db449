"""Reading a trace: root attributes, /summary, /steps, /events, /memory, /links as pandas objects.

Needs Debian's python3-h5py and python3-pandas. Times are simulated seconds, memory in bytes.
"""

from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, Iterable, List, Union

import h5py
import numpy as np
import pandas as pd

SCHEMA_MAJOR = 1

#: breakdown categories of /summary (attributes breakdown_<category>_s), in the order `trainsim run` prints them;
#: categories a trace has beyond these are added after them
BREAKDOWN = [
    "data", "forward", "backward", "recompute", "optimizer",
    "tp_comm", "pp_comm", "dp_comm", "zero_comm", "ep_comm", "cp_comm", "idle",
]


def breakdown_categories(summary) -> list:
    """The breakdown categories present in a /summary, known ones first."""
    present = [k[len("breakdown_"):-len("_s")] for k in summary.index if k.startswith("breakdown_") and k.endswith("_s")]
    return [c for c in BREAKDOWN if c in present] + sorted(c for c in present if c not in BREAKDOWN)


def _text(value):
    if isinstance(value, bytes):
        return value.decode("utf-8")
    if isinstance(value, np.ndarray) and value.shape == ():
        return _text(value[()])
    if isinstance(value, np.generic):
        return value.item()
    return value


def _table(dataset) -> pd.DataFrame:
    """A compound dataset as a DataFrame; fixed-length strings decoded to str."""
    data = dataset[()]
    frame = pd.DataFrame({name: data[name] for name in data.dtype.names})
    for name in data.dtype.names:
        if data.dtype[name].kind == "S":
            frame[name] = frame[name].str.decode("utf-8")
    return frame


@dataclass
class Trace:
    """One trace file, loaded. `attrs` are the root attributes, `summary` the run's metrics."""

    path: str
    attrs: Dict[str, object]
    summary: pd.Series
    steps: pd.DataFrame
    events: pd.DataFrame
    memory: pd.DataFrame
    links: pd.DataFrame
    events_attrs: Dict[str, object] = field(default_factory=dict)
    links_attrs: Dict[str, object] = field(default_factory=dict)

    @property
    def breakdown(self) -> pd.Series:
        """Seconds per GPU and step by category (sums to the step time)."""
        cats = breakdown_categories(self.summary)
        return pd.Series({c: float(self.summary[f"breakdown_{c}_s"]) for c in cats}, name=self.label)

    @property
    def label(self) -> str:
        return f"{int(self.summary['gpus'])} GPUs"


def load_trace(path: Union[str, Path]) -> Trace:
    """Reads a trace; raises ValueError when its schema's major version is not SCHEMA_MAJOR."""
    path = str(path)
    with h5py.File(path, "r") as f:
        attrs = {k: _text(v) for k, v in f.attrs.items()}
        major = int(str(attrs["schema_version"]).split(".")[0])
        if major != SCHEMA_MAJOR:
            raise ValueError(f"{path}: trace schema {attrs['schema_version']}, this package reads {SCHEMA_MAJOR}.x")
        summary = pd.Series({k: _text(v) for k, v in f["summary"].attrs.items()}, name=path)
        steps = _table(f["steps"])
        events = _table(f["events"])
        memory = _table(f["memory"])
        links = _table(f["links"]["utilization"]) if "utilization" in f["links"] else pd.DataFrame()
        events_attrs = {k: _text(v) for k, v in f["events"].attrs.items()}
        links_attrs = {k: _text(v) for k, v in f["links"].attrs.items()}
    if not events.empty:
        events["duration_s"] = events["end_s"] - events["start_s"]
    if not steps.empty:
        steps["duration_s"] = steps["end_s"] - steps["start_s"]
    return Trace(path, attrs, summary, steps, events, memory, links, events_attrs, links_attrs)


def load_traces(paths: Iterable[Union[str, Path]]) -> List[Trace]:
    return [load_trace(p) for p in paths]


def scaling_table(traces: Iterable[Trace]) -> pd.DataFrame:
    """One row per trace: gpus, step_time_s, tokens_per_s, tokens_per_s_per_gpu, mfu, sorted by gpus."""
    rows = []
    for t in traces:
        s = t.summary
        rows.append(
            {
                "trace": t.path,
                "gpus": int(s["gpus"]),
                "step_time_s": float(s["step_time_s"]),
                "tokens_per_s": float(s["tokens_per_s"]),
                "tokens_per_s_per_gpu": float(s["tokens_per_s_per_gpu"]),
                "mfu": float(s["mfu"]),
            }
        )
    return pd.DataFrame(rows).sort_values("gpus").reset_index(drop=True)
