"""`trainsim drill --trace FILE` outputs (schema: analysis/SCHEMA.md, "Drill files"): the loss
curves of the uninterrupted run and of each recovered or rescaled run, and how far each moved."""

from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, Union

import h5py
import pandas as pd

from .trace import _table, _text

DRILL_SCHEMA_MAJOR = 1


@dataclass
class Drill:
    path: Path
    attrs: Dict[str, object] = field(default_factory=dict)  # /drill attributes: layout and settings
    loss: pd.DataFrame = None        # /drill/loss: run, step, loss, lr, loss_scale, skipped, dp
    divergence: pd.DataFrame = None  # /drill/divergence: one row per run against the uninterrupted one

    def curve(self, run: str) -> pd.DataFrame:
        """One run's loss curve, indexed by step."""
        return self.loss[self.loss["run"] == run].set_index("step")

    def loss_difference(self) -> pd.DataFrame:
        """|loss - uninterrupted loss| per step (rows) and run (columns)."""
        reference = self.curve("uninterrupted")["loss"]
        return pd.DataFrame({run: (self.curve(run)["loss"] - reference).abs()
                             for run in self.divergence["run"]})


def load_drill(path: Union[str, Path]) -> Drill:
    path = Path(path)
    with h5py.File(path, "r") as f:
        group = f["drill"]
        attrs = {key: _text(value) for key, value in group.attrs.items()}
        major = int(str(attrs["schema_version"]).split(".")[0])
        if major != DRILL_SCHEMA_MAJOR:
            raise ValueError(f"{path}: drill schema {attrs['schema_version']}, this reader knows {DRILL_SCHEMA_MAJOR}.x")
        return Drill(path, attrs, _table(group["loss"]), _table(group["divergence"]))
