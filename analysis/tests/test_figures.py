"""What the figures of trainsim_analysis show, checked on their matplotlib objects, on traces made
by `trainsim run --trace` of small variants of the tiny scenario: bars labelled by layout, the
symmetry-reduction note and distinct legend colours on the link figure, the pipeline bubble as
/summary counts it (TP communication excluded), model chunks told apart with the legend outside
the data, and every checkpoint of a run counted on its timeline.

Run: /usr/bin/python3 analysis/tests/test_figures.py --trainsim build/trainsim --scenario tests/trace/tiny.ini
"""

import argparse
import shutil
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.colors as mcolors  # noqa: E402
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import trainsim_analysis as ta  # noqa: E402
from trainsim_analysis import plots  # noqa: E402

ARGS = None
# Variants of the tiny scenario (8 GPUs on 4 nodes: tp 2 pp 2 dp 2, 1F1B, 4 layers): the name, the
# --set overrides, and extra arguments.
TRACES = {
    "tiny": ([], ["--trace-links"]),
    "pp4": (["parallel.tp=1", "parallel.pp=4"], []),  # the same 8 GPUs, another layout
    "gpipe": (["parallel.schedule=gpipe"], []),  # the same layout, another schedule
    "switch": (["cluster.fabric=single-switch"], []),  # the same layout and schedule, another fabric
    "interleaved": (["model.layers=8", "parallel.schedule=interleaved", "parallel.virtual_stages=2"],
                    ["--trace-links"]),
    "pp4_interleaved": (["model.layers=16", "cluster.nodes=8", "parallel.pp=4", "parallel.schedule=interleaved",
                         "parallel.virtual_stages=2", "training.grad_accum=8"], []),
    "full": ([], ["--trace-links", "--full"]),
    "sixteen": (["cluster.nodes=8"], ["--trace-links"]),  # 16 GPUs: 11 link series, beyond a 10-colour cycle
}
# A 3-day run checkpointing every 10 minutes: over 400 checkpoints, more than the timeline ticks one by one.
RUN_SETTINGS = ["run.duration=3d", "failures.mtbf=2d", "checkpoint.write_bandwidth=2MB/s", "checkpoint.interval=10min"]


def trainsim(path, settings, extra):
    args = [ARGS.trainsim, "run", ARGS.scenario, "--trace", str(path), *extra]
    args += [a for kv in settings for a in ("--set", kv)]
    done = subprocess.run(args, capture_output=True, text=True)
    assert done.returncode == 0, f"{' '.join(args)}: {done.stderr}"


def legend_entries(fig):
    """(label, handle) of every legend of `fig`."""
    out = []
    for ax in fig.axes:
        legend = ax.get_legend()
        if legend is not None:
            out += list(zip([t.get_text() for t in legend.get_texts()], legend.legend_handles
                            if hasattr(legend, "legend_handles") else legend.legendHandles))
    return out


def handle_style(handle):
    """What tells a legend entry apart: colour (RGBA), line style, hatch."""
    if hasattr(handle, "get_color") and not hasattr(handle, "get_facecolor"):  # a line
        return mcolors.to_rgba(handle.get_color()), handle.get_linestyle(), None
    face = handle.get_facecolor()
    face = tuple(np.asarray(face).reshape(-1, 4)[0]) if np.size(face) else None
    return face, None, handle.get_hatch()


class Figures(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        tmp = Path(cls.tmp.name)
        cls.paths = {}
        for name, (settings, extra) in TRACES.items():
            cls.paths[name] = tmp / f"{name}.h5"
            trainsim(cls.paths[name], settings, extra)
        cls.paths["tiny_copy"] = tmp / "copy" / "tiny_again.h5"  # the same scenario, another file
        cls.paths["tiny_copy"].parent.mkdir()
        shutil.copy(cls.paths["tiny"], cls.paths["tiny_copy"])
        cls.paths["run"] = tmp / "run.h5"
        trainsim(cls.paths["run"], RUN_SETTINGS, ["--trace-level", "steps"])
        cls.traces = {name: ta.load_trace(path) for name, path in cls.paths.items()}

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def tearDown(self):
        plt.close("all")

    # step_breakdown: one bar per trace, labelled by layout.

    def test_layout_from_the_resolved_scenario(self):
        self.assertEqual(self.traces["tiny"].layout,
                         {"gpus": 8, "tp": 2, "pp": 2, "dp": 2, "cp": 1, "ep": 1, "virtual_stages": 1,
                          "schedule": "1f1b"})
        self.assertEqual(self.traces["tiny"].label, "8 GPUs, tp 2 pp 2 dp 2, 1f1b")
        self.assertEqual(self.traces["pp4"].label, "8 GPUs, tp 1 pp 4 dp 2, 1f1b")
        self.assertEqual(self.traces["interleaved"].label, "8 GPUs, tp 2 pp 2 dp 2, interleaved x2")

    def bars(self, names):
        fig = ta.plot_step_breakdown([self.traces[n] for n in names])
        ax = fig.axes[0]
        centers = {round(p.get_x() + p.get_width() / 2, 9) for p in ax.patches}
        labels = [t.get_text() for t in ax.get_xticklabels()]
        return fig, centers, labels

    def test_same_gpu_count_gives_one_bar_per_trace_with_distinct_labels(self):
        names = ["tiny", "pp4", "gpipe", "interleaved"]
        self.assertEqual({int(self.traces[n].summary["gpus"]) for n in names}, {8})
        _, centers, labels = self.bars(names)
        self.assertEqual(len(centers), len(names))
        self.assertEqual(len(set(labels)), len(names), labels)
        self.assertIn("tp 1 pp 4 dp 2", labels[1])
        self.assertIn("gpipe", labels[2])
        self.assertIn("interleaved x2", labels[3])

    def test_traces_of_one_layout_are_told_apart_by_what_differs(self):
        _, centers, labels = self.bars(["tiny", "switch"])
        self.assertEqual(len(centers), 2)
        self.assertIn("fabric=fat-tree", labels[0])
        self.assertIn("fabric=single-switch", labels[1])
        _, centers, labels = self.bars(["tiny", "tiny_copy"])  # one scenario twice: the file names
        self.assertEqual(len(centers), 2)
        self.assertNotEqual(labels[0], labels[1])
        self.assertIn("tiny_again.h5", labels[1])

    def test_bars_add_up_to_the_step_time(self):
        fig, _, _ = self.bars(["tiny", "pp4"])
        tops = {}
        for p in fig.axes[0].patches:
            x = round(p.get_x() + p.get_width() / 2, 9)
            tops[x] = max(tops.get(x, 0.0), p.get_y() + p.get_height())
        for top, name in zip(sorted(tops.values()), sorted(["tiny", "pp4"],
                                                          key=lambda n: self.traces[n].summary["step_time_s"])):
            self.assertAlmostEqual(top, float(self.traces[name].summary["step_time_s"]), places=9)

    # link_utilization: the symmetry note, distinct legend entries.

    def annotations(self, fig):
        return [c for ax in fig.axes for c in ax.get_children() if c.get_gid() == "symmetry-note"]

    def test_reduced_trace_says_so_on_the_link_figure(self):
        trace = self.traces["tiny"]
        self.assertEqual(int(trace.attrs["reduce_symmetry"]), 1)
        fig = ta.plot_link_utilization(trace)
        notes = self.annotations(fig)
        self.assertEqual(len(notes), 1)
        self.assertIn("--full", notes[0].get_text())
        self.assertIn("NVLink", notes[0].get_text())
        nvlink = [label for label, _ in legend_entries(fig) if "nvlink" in label]
        self.assertTrue(nvlink and all("symmetry-reduced" in label for label in nvlink), nvlink)

    def test_full_trace_has_no_symmetry_note(self):
        trace = self.traces["full"]
        self.assertEqual(int(trace.attrs["reduce_symmetry"]), 0)
        fig = ta.plot_link_utilization(trace)
        self.assertEqual(self.annotations(fig), [])

    def test_link_legend_entries_have_distinct_colours(self):
        self.assertGreater(self.traces["sixteen"].links["link"].nunique(), 10)
        for name in ["tiny", "interleaved", "full", "sixteen"]:
            fig = ta.plot_link_utilization(self.traces[name])
            entries = legend_entries(fig)
            self.assertEqual(len(entries), self.traces[name].links["link"].nunique(), name)
            self.assertGreater(len(entries), 1, name)
            colours = [handle_style(h)[0] for _, h in entries]
            self.assertEqual(len(set(colours)), len(colours), f"{name}: {entries}")

    def test_line_styles_stay_distinct_past_the_palette(self):
        styles = plots._line_styles(45)
        self.assertEqual(len(set(styles)), 45)
        self.assertEqual(len({c for c, _ in styles[:20]}), 20)

    # Pipeline bubble: /summary's definition, TP communication excluded.

    def test_bubble_matches_the_summary(self):
        # 1F1B and GPipe (sends block), interleaved (sends overlap), every replica with --full.
        for name in ["tiny", "pp4", "gpipe", "interleaved", "full"]:
            trace = self.traces[name]
            bubble = ta.bubble_per_stage(trace)
            self.assertEqual(len(bubble), len(trace.steps) * trace.events["replica"].nunique()
                             * trace.layout["pp"], name)
            mean = bubble["bubble_s"].mean() / float(trace.summary["step_time_s"])
            self.assertAlmostEqual(mean, float(trace.summary["bubble_fraction"]), delta=0.002, msg=name)
        trace = self.traces["pp4_interleaved"]
        mean = ta.bubble_per_stage(trace)["bubble_s"].mean() / float(trace.summary["step_time_s"])
        self.assertAlmostEqual(mean, float(trace.summary["bubble_fraction"]), delta=0.005)

    def test_bubble_excludes_tp_comm(self):
        trace = self.traces["tiny"]
        e = trace.events
        bubble = ta.bubble_per_stage(trace).set_index(["step", "replica", "stage"])
        for (step, replica, stage), row in bubble.iterrows():
            rows = e[(e["step"] == step) & (e["replica"] == replica) & (e["stage"] == stage)]
            compute = rows.loc[rows["stream"] == "compute", "duration_s"].sum()
            tp = rows.loc[rows["stream"] == "tp_comm", "duration_s"].sum()
            self.assertGreater(tp, 0)
            # The old per-stage "bubble" (the step less compute) counted TP communication in it.
            self.assertLessEqual(row["bubble_s"], row["step_s"] - compute - tp + 1e-12)
            self.assertAlmostEqual(row["compute_s"], compute, places=12)
        self.assertAlmostEqual(bubble["bubble_s"].mean() / float(trace.summary["step_time_s"]),
                               float(trace.summary["bubble_fraction"]), places=6)

    def test_bubble_refuses_aggregated_events(self):
        trace = ta.load_trace(self.paths["tiny"])
        trace.events.loc[trace.events.index[0], "count"] = 3
        with self.assertRaises(ValueError):
            ta.bubble_per_stage(trace)

    # Pipeline figure: chunks told apart, legend outside the axes, the bubble per stage.

    def test_interleaved_chunks_have_distinct_colours(self):
        fig = ta.plot_pipeline_timeline(self.traces["interleaved"])
        entries = dict(legend_entries(fig))
        for kind in ["forward", "backward"]:
            chunk0, chunk1 = entries[f"{kind}, chunk 0"], entries[f"{kind}, chunk 1"]
            self.assertNotEqual(handle_style(chunk0)[0], handle_style(chunk1)[0], kind)
            self.assertNotEqual(handle_style(chunk0)[2] or "", handle_style(chunk1)[2] or "", kind)
        styles = [handle_style(h) for h in entries.values()]
        self.assertEqual(len(set(styles)), len(styles), entries)
        # The bars themselves carry the chunk's colour.
        colours = {}
        for ax in fig.axes:
            for c in ax.collections:
                if c.get_label() in ("forward, chunk 0", "forward, chunk 1"):
                    colours.setdefault(c.get_label(), set()).add(tuple(c.get_facecolor()[0]))
        self.assertEqual(len(colours), 2)
        self.assertTrue(colours["forward, chunk 0"].isdisjoint(colours["forward, chunk 1"]))

    def test_pipeline_legend_covers_no_data(self):
        for name in ["tiny", "interleaved", "pp4_interleaved"]:
            fig = ta.plot_pipeline_timeline(self.traces[name])
            fig.canvas.draw()
            ax = fig.axes[0]
            legend = ax.get_legend().get_window_extent()
            self.assertFalse(legend.overlaps(ax.get_window_extent()), name)

    def test_pipeline_stage_labels_give_the_bubble(self):
        trace = self.traces["tiny"]
        fig = ta.plot_pipeline_timeline(trace)
        labels = [t.get_text() for t in fig.axes[0].get_yticklabels()]
        bubble = ta.bubble_per_stage(trace, replica=0)
        bubble = bubble[bubble["step"] == 0]
        for label, fraction in zip(labels, bubble["bubble_fraction"]):
            self.assertIn(f"bubble {100 * fraction:.1f} %", label)
        self.assertIn(f"{100 * float(trace.summary['bubble_fraction']):.1f} %", fig.axes[0].get_title())

    # Run timeline: every checkpoint counted.

    def test_run_timeline_counts_every_checkpoint(self):
        trace = self.traces["run"]
        checkpoints = trace.checkpoints
        self.assertGreater(len(checkpoints), 100)  # beyond one tick each
        fig = ta.plot_run_timeline(trace)
        panel = [ax for ax in fig.axes if ax.get_gid() == "checkpoints per bin"]
        self.assertEqual(len(panel), 1)
        counted = sum(p.get_height() for p in panel[0].patches if p.get_gid() == "checkpoint-count")
        self.assertEqual(round(counted), len(checkpoints))
        totals = [c for c in panel[0].get_children() if c.get_gid() == "checkpoint-total"]
        self.assertEqual(len(totals), 1)
        self.assertIn(f"{len(checkpoints)} checkpoint writes", totals[0].get_text())
        self.assertIn(f"{int(checkpoints['committed'].sum())} committed", totals[0].get_text())

    def test_checkpoint_bins_hold_every_write(self):
        trace = self.traces["run"]
        end = float(trace.run["wall_time_s"])
        for bins in [None, 1, 7, 500]:
            counts = ta.checkpoint_bins(trace.checkpoints, end, bins)
            groups = [label for label, _ in plots._CHECKPOINT_GROUPS]
            self.assertEqual(int(counts[groups].to_numpy().sum()), len(trace.checkpoints), bins)
            self.assertEqual(int(counts["interrupted"].sum()), int((~trace.checkpoints["committed"]).sum()))
            self.assertAlmostEqual(counts["end_s"].iloc[-1], end)


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--trainsim", required=True)
    parser.add_argument("--scenario", required=True)
    ARGS, rest = parser.parse_known_args()
    unittest.main(argv=[sys.argv[0], *rest])
