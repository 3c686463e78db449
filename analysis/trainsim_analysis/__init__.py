"""Load trainsim HDF5 traces into pandas DataFrames and plot them (schema: analysis/README.md)."""

from .trace import (
    Trace,
    load_trace,
    load_traces,
    scaling_table,
    run_table,
    run_phases,
    run_progress,
    SCHEMA_MAJOR,
)
from .plots import (
    plot_step_breakdown,
    plot_pipeline_timeline,
    plot_scaling,
    plot_link_utilization,
    plot_run_timeline,
    plot_goodput_vs_interval,
    save_figure,
)

__all__ = [
    "Trace",
    "load_trace",
    "load_traces",
    "scaling_table",
    "run_table",
    "run_phases",
    "run_progress",
    "SCHEMA_MAJOR",
    "plot_step_breakdown",
    "plot_pipeline_timeline",
    "plot_scaling",
    "plot_link_utilization",
    "plot_run_timeline",
    "plot_goodput_vs_interval",
    "save_figure",
]
