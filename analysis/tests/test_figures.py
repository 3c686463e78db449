"""What the figures of trainsim_analysis show, checked on their matplotlib objects, on traces made
by `trainsim run --trace` of small variants of the tiny scenario: bars labelled by layout and
titled with model, GPU and batch, the symmetry-reduction note, distinct legend colours and window
means on the link figure, the pipeline bubble as /summary counts it (TP communication excluded),
passes numbered by micro-batch in the legend's colours, model chunks told apart with the legend
outside the data, scaling ratios on axes from 0, every checkpoint of a run counted on its
timeline, and a replayed Chakra trace (`trainsim replay --trace`) analysed without negative
communication or NaN.

Run: /usr/bin/python3 analysis/tests/test_figures.py --trainsim build/trainsim --scenario tests/trace/tiny.ini
"""

import argparse
import colorsys
import json
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
from trainsim_analysis import plots, timeline_figures  # noqa: E402

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
        # The tiny step exported as Chakra traces and replayed on one 8-GPU node.
        export = tmp / "export"
        trainsim(tmp / "exported.h5", [], ["--trace-level", "summary", "--chakra-out", str(export)])
        cls.paths["replay"] = tmp / "replay.h5"
        args = [ARGS.trainsim, "replay", str(export / "step"), "--cluster", "dgx-h100", "--nodes", "1", "--json",
                "--trace", str(cls.paths["replay"])]
        done = subprocess.run(args, capture_output=True, text=True)
        assert done.returncode == 0, f"{' '.join(args)}: {done.stderr}"
        cls.replay_json = json.loads(done.stdout)
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
        # Each link class a line in the legend, each of the busiest links a row of the window map.
        self.assertGreater(self.traces["sixteen"].links["link"].nunique(), 10)
        for name in ["tiny", "interleaved", "full", "sixteen"]:
            links = self.traces[name].links["link"].unique()
            fig = ta.plot_link_utilization(self.traces[name])
            entries = legend_entries(fig)
            self.assertEqual(len(entries), sum(n.startswith("class:") for n in links), name)
            self.assertGreater(len(entries), 1, name)
            colours = [handle_style(h)[0] for _, h in entries]
            self.assertEqual(len(set(colours)), len(colours), f"{name}: {entries}")
            rows = [t.get_text() for t in fig.axes[1].get_yticklabels()]
            self.assertEqual(sorted(rows), sorted(n for n in links if not n.startswith("class:")), name)

    # Issue 55: link utilization averaged over windows, not 0/100 % spikes of every sample.

    def test_link_windows_average_the_samples(self):
        trace = self.traces["sixteen"]
        links = trace.links
        for windows in [None, 1, 7]:
            w = ta.link_windows(trace, windows)
            count = w["window"].nunique()
            self.assertEqual(count, windows or max(1, min(60, links.groupby("link").size().max() // 5)))
            self.assertEqual(int(w.groupby("link")["samples"].sum().min()), int(links.groupby("link").size().min()))
            t0, t1 = links["time_s"].min(), links["time_s"].max()
            width = (t1 - t0) / count
            for r in w.sample(min(len(w), 25), random_state=1).itertuples():
                index = np.minimum(((links["time_s"] - t0) // width).astype(int), count - 1)
                expected = links[(links["link"] == r.link) & (index == r.window)]["utilization"].mean()
                self.assertAlmostEqual(r.utilization, expected, places=12, msg=(r.link, r.window))
                self.assertAlmostEqual(r.start_s, t0 + r.window * width, places=12)
        # Averaging flattens the spikes: no window is above the highest sample, the mean is kept.
        w = ta.link_windows(trace)
        self.assertLessEqual(w["utilization"].max(), links["utilization"].max() + 1e-12)
        per_link = links.groupby("link")["utilization"].mean()
        weighted = w.assign(x=w["utilization"] * w["samples"]).groupby("link")["x"].sum() / w.groupby("link")[
            "samples"].sum()
        for link in per_link.index:
            self.assertAlmostEqual(weighted[link], per_link[link], places=12)

    def test_link_figure_draws_the_window_means_from_zero(self):
        trace = self.traces["tiny"]
        w = ta.link_windows(trace)
        fig = ta.plot_link_utilization(trace)
        top, bottom = fig.axes[0], fig.axes[1]
        self.assertEqual(top.get_ylim()[0], 0.0)
        self.assertIn("mean over", top.get_title())
        self.assertIn("windows", top.get_title())
        for line in top.get_lines():
            name = "class:" + line.get_label().split(" links")[0]
            expected = 100 * w[w["link"] == name].sort_values("window")["utilization"].to_numpy()
            np.testing.assert_allclose(line.get_ydata()[:-1], expected, rtol=0, atol=1e-9)
            self.assertEqual(line.get_drawstyle(), "steps-post")
        meshes = [c for c in bottom.collections if c.get_gid() == "link-windows"]
        self.assertEqual(len(meshes), 1)
        self.assertEqual(meshes[0].get_clim(), (0, 100))
        busiest = sorted(n for n in w["link"].unique() if not n.startswith("class:"))
        grid = np.asarray(meshes[0].get_array()).reshape(len(busiest), -1)
        for i, name in enumerate(busiest):
            expected = 100 * w[w["link"] == name].sort_values("window")["utilization"].to_numpy()
            np.testing.assert_allclose(grid[i], expected, atol=1e-9)

    def test_line_styles_stay_distinct_past_the_palette(self):
        styles = timeline_figures._line_styles(45)
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

    # Issue 55: passes numbered by micro-batch, in the legend's colours (not pale).

    def test_pipeline_passes_are_numbered_by_micro_batch(self):
        for name in ["tiny", "interleaved", "pp4_interleaved"]:
            trace = self.traces[name]
            passes = ta.pipeline_passes(trace)
            # One pass per stage, kind, chunk and micro-batch: its slices joined.
            compute = trace.events[(trace.events["step"] == 0) & (trace.events["replica"] == 0)
                                   & (trace.events["stream"] == "compute")]
            keys = compute.groupby(["stage", "kind", "layer", "microbatch"]).ngroups
            self.assertEqual(len(passes), keys, name)
            self.assertEqual(int(passes["slices"].sum()), len(compute), name)
            fig = ta.plot_pipeline_timeline(trace)
            numbers = {}
            for t in fig.axes[0].texts:
                if t.get_gid() == "microbatch":
                    numbers[(round(t.get_position()[0], 12), round(t.get_position()[1] + 0.1))] = t.get_text()
            main = passes[passes["kind"].isin(["forward", "backward"])]
            for r in main.itertuples():
                where = (round(r.start_s + r.duration_s / 2, 12), r.stage)
                self.assertEqual(numbers.get(where), str(r.microbatch), f"{name}: {r}")

    def test_pipeline_bars_have_the_legend_colours(self):
        for name in ["tiny", "interleaved"]:
            fig = ta.plot_pipeline_timeline(self.traces[name])
            entries = dict(legend_entries(fig))
            for c in fig.axes[0].collections:
                label = c.get_label()
                if label.split(",")[0] in timeline_figures.KIND_COLORS:
                    for face in c.get_facecolor():
                        self.assertEqual(tuple(face), handle_style(entries[label])[0], f"{name}: {label}")
            # Later chunks darker, never paler, than the kind's colour (the legend's chunk 0).
            for label, handle in entries.items():
                kind = label.split(",")[0]
                if kind not in timeline_figures.KIND_COLORS:
                    continue
                base = mcolors.to_rgb(timeline_figures.KIND_COLORS[kind])
                face = handle_style(handle)[0][:3]
                self.assertLessEqual(colorsys.rgb_to_hls(*face)[1], colorsys.rgb_to_hls(*base)[1] + 1e-9, label)
                self.assertEqual(handle_style(handle)[0][3], 1.0, label)
                if label.endswith("chunk 0") or "," not in label:
                    self.assertEqual(face, base, label)

    # Issue 55: breakdown and scaling titled with GPU, model and batch; ratios from 0.

    def test_breakdown_title_names_model_gpu_and_batch(self):
        trace = self.traces["tiny"]
        fig = ta.plot_step_breakdown([trace, self.traces["pp4"]])
        title = fig.axes[0].get_title()
        self.assertIn("on h100-sxm", title)
        self.assertIn(f"global batch {trace.summary['global_batch_samples']:,.0f} x 512 tokens", title)
        self.assertIn(str(trace.summary["model"]), title)
        self.assertEqual(fig.axes[0].get_ylim()[0], 0.0)
        colours = [handle_style(h)[0] for _, h in legend_entries(fig)]
        self.assertEqual(len(set(colours)), len(colours))

    def test_scaling_ratios_start_at_zero_and_the_title_says_what(self):
        traces = [self.traces[n] for n in ["tiny", "sixteen"]]
        table = ta.scaling_table(traces)
        self.assertEqual(list(table["gpus"]), [8, 16])
        fig = ta.plot_scaling(table)
        left, right = fig.axes
        self.assertEqual(right.get_ylim()[0], 0.0)
        self.assertGreaterEqual(right.get_ylim()[1], 100.0)
        lines = {line.get_label().split(" (")[0]: line for line in right.get_lines()}
        efficiency = (table["tokens_per_s"] / table["gpus"]) / (table["tokens_per_s"][0] / 8)
        np.testing.assert_allclose(lines["scaling efficiency"].get_ydata(), 100 * efficiency)
        np.testing.assert_allclose(lines["MFU"].get_ydata(), 100 * table["mfu"])
        title = fig._suptitle.get_text()
        self.assertIn("on h100-sxm", title)
        self.assertIn("global batch 8 to 16 x 512 tokens", title)
        self.assertEqual([float(t) for t in left.get_xticks()], [8.0, 16.0])
        fig = ta.plot_scaling(table[["gpus", "tokens_per_s"]])
        self.assertIn("not in the table", fig._suptitle.get_text())

    # Issue 55: a replayed trace analysed without negative communication or NaN.

    def test_replay_time_per_rank_is_the_replays(self):
        trace = self.traces["replay"]
        self.assertTrue(trace.is_replay)
        per_rank = ta.replay_per_rank(trace)
        expected = self.replay_json["per_rank"]
        self.assertEqual(len(per_rank), len(expected))
        for row, want in zip(per_rank.itertuples(), expected):
            for key in ["compute_s", "exposed_comm_s", "idle_s"]:
                self.assertAlmostEqual(getattr(row, key), want[key], places=12, msg=(row.rank, key))
        bubble = ta.bubble_per_stage(trace)
        self.assertEqual(sorted(bubble["rank"]), list(range(len(expected))))
        self.assertFalse(bubble.isna().any().any(), bubble)
        self.assertTrue((bubble["comm_s"] >= 0).all() and (bubble["bubble_s"] >= 0).all(), bubble)
        np.testing.assert_allclose(bubble["compute_s"] + bubble["comm_s"] + bubble["bubble_s"], bubble["step_s"])
        breakdown = trace.breakdown
        self.assertEqual(list(breakdown.index), ta.REPLAY_BREAKDOWN)
        for key in ta.REPLAY_BREAKDOWN:
            self.assertAlmostEqual(breakdown[key], self.replay_json["per_gpu_s"][key], places=12)

    def test_replay_figures_say_what_does_not_apply(self):
        trace = self.traces["replay"]
        fig = ta.plot_pipeline_timeline(trace)
        ax = fig.axes[0]
        text = ax.get_title() + " ".join(t.get_text() for t in ax.get_yticklabels())
        self.assertNotIn("nan", text.lower())
        self.assertIn("not applicable", ax.get_title())
        self.assertEqual(len(ax.get_yticklabels()), int(trace.summary["gpus"]))
        fig = ta.plot_step_breakdown([trace, self.traces["tiny"]])
        ax = fig.axes[0]
        self.assertNotIn("nan", ax.get_title().lower())
        self.assertIn("a replay (no model)", ax.get_title())
        tops = {}
        for p in ax.patches:
            tops[round(p.get_x(), 6)] = max(tops.get(round(p.get_x(), 6), 0.0), p.get_y() + p.get_height())
        self.assertAlmostEqual(sorted(tops.items())[0][1], float(trace.summary["step_time_s"]), places=9)

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
