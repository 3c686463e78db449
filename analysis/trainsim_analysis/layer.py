"""Reading `trainsim layer --json`: one transformer layer's ops with the times the step
simulation charges them, and, with `--measured`, the check against a layer timed on a GPU
by `trainsim-calibrate --layer` (models/README.md, "One layer, op by op").
"""

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, Optional, Union

import pandas as pd

#: the passes of a layer, in the order `trainsim layer` lists them
PASSES = ["forward", "recompute", "backward"]


@dataclass
class Layer:
    path: Path
    model: str
    gpu: str
    compute_model: str
    #: one row per op: pass, op, kind, flops, bytes, time_s
    ops: pd.DataFrame
    #: forward_s, recompute_s, backward_s, layer_s
    totals: Dict[str, float]
    #: with --measured: one row per measured kernel: op, pass, ops, predicted_s, measured_s, deviation
    measured: Optional[pd.DataFrame] = None
    #: with --measured: forward, backward, layer -> {predicted_s, measured_s, deviation}
    measured_totals: Dict[str, Dict[str, float]] = field(default_factory=dict)
    measured_file: str = ""
    tolerance: float = 0.0
    within_tolerance: Optional[bool] = None

    @property
    def label(self) -> str:
        return f"{self.model} on {self.gpu}"


def load_layer(path: Union[str, Path]) -> Layer:
    """Reads the JSON `trainsim layer SCENARIO --json [--measured FILE]` printed."""
    path = Path(path)
    data = json.loads(path.read_text())
    for key in ("ops", "forward_s", "backward_s", "layer_s"):
        if key not in data:
            raise ValueError(f"{path}: no '{key}': not the output of trainsim layer --json")
    ops = pd.DataFrame(data["ops"], columns=["pass", "op", "kind", "flops", "bytes", "time_s"])
    layer = Layer(
        path=path,
        model=data.get("model", ""),
        gpu=data.get("gpu", ""),
        compute_model=data.get("compute_model", ""),
        ops=ops,
        totals={k: float(data[k]) for k in ("forward_s", "recompute_s", "backward_s", "layer_s") if k in data},
    )
    measured = data.get("measured")
    if measured:
        rows = pd.DataFrame(measured["rows"], columns=["op", "pass", "ops", "predicted_s", "measured_s", "deviation"])
        layer.measured = rows
        layer.measured_totals = {k: measured[k] for k in ("forward", "backward", "layer")}
        layer.measured_file = measured.get("file", "")
        layer.tolerance = float(measured.get("tolerance", 0.0))
        layer.within_tolerance = bool(measured.get("within_tolerance"))
    return layer
