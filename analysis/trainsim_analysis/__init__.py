"""Load trainsim HDF5 traces (schema: analysis/README.md) and `trainsim layer --json` into pandas, and plot them."""

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
from .layer import Layer, load_layer
from .plots import (
    plot_step_breakdown,
    plot_pipeline_timeline,
    plot_scaling,
    plot_link_utilization,
    plot_run_timeline,
    plot_goodput_vs_interval,
    plot_layer,
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
    "Layer",
    "load_layer",
    "plot_step_breakdown",
    "plot_pipeline_timeline",
    "plot_scaling",
    "plot_link_utilization",
    "plot_run_timeline",
    "plot_goodput_vs_interval",
    "plot_layer",
    "save_figure",
]
