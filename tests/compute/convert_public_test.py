#!/usr/bin/env python3
"""Checks kernels/calibration/convert_public.py against its inputs (run by CTest as
CalibrationTables.<check>; standard library only):

  ConverterIsDeterministic      running it twice into empty folders writes the committed
                                tables byte for byte (tables measured by trainsim-calibrate
                                are skipped: the converter leaves them alone)
  ConvertedRowsEqualSourceRows  every source row the converter is documented to use is in the
                                table with the source's time; the extracts are parsed here
                                independently of the converter
  ConverterKeepsMeasuredTables  a table whose header says 'source: measured' is not rewritten
  TablesCiteTheirSources        headers cite repository, path, commit and license of every
                                source used; every row has an origin; the counts add up

    python3 tests/compute/convert_public_test.py [--sources DIR] [--simumax DIR] CHECK...

The extracts are third-party files the project does not carry: like the converter, this
reads them from ../shared/data/calibration-sources/ and SimuMax's B200 file from
../shared/data/simumax/ beside the checkout (CTest passes --sources
TRAINSIM_SHARED_DATA/calibration-sources; --simumax defaults to simumax/ beside it). Without
either the first three checks are skipped (exit SKIP_CODE, CTest's SKIP_RETURN_CODE); the last
reads only the committed tables and always runs.
"""

import argparse
import math
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CALIBRATION = os.path.join(ROOT, "kernels", "calibration")
CONVERTER = os.path.join(CALIBRATION, "convert_public.py")
SKIP_CODE = 77  # tests/CMakeLists.txt gives it to CTest as SKIP_RETURN_CODE
TABLES = ["a100-80g", "h100-sxm", "h200", "b200", "gb200", "b300", "gb300"]
COMMITS = {
    "openxla/xla": "336bb15c32a11820a81b226ae502d9ebbfab4412",
    "microsoft/vidur": "7d47513363ec447a741ac5e47241580b47724fbf",
    "NVIDIA/cudnn-frontend": "3929da2ef4c1dba1bb8acb68727b9134f26f40c0",
    "PrincetonUniversity/LLMCompass": "2e015fd2ee750e6cad8d7152df52551e5b41ef20",
    "MooreThreads/SimuMax": "4dcaae513ba7679d56c116a17cd4a691ec41e252",
    "stas00/ml-engineering": "744d01e18b79512572f64a6bbd8b5f4a725203a7",
    "deepseek-ai/DeepGEMM": "55ab91f72f76e8a6db0e86282c3169a88d93df1b",
    "NVIDIA/TransformerEngine": "8f2e63578e103ce1d41503102f47504c129b94d2",
}
B200_ARTIFACT_COMMIT = "9793df569ce413f4b1844a9176f7ae24dd981603"
# The FP8 attention artifacts (B200 and GB300; GB200 at the second commit).
FP8_ARTIFACT_COMMITS = ("0b1577c8c83401237d601d0d0db5210506705396", "d48a60eb146eada7aee2e00b8f8c1d6ddcf96c51")
# The figures read from public pages (no extract to parse): the converter's data module, whose
# numbers public.md D4-D6 quote; the rules below are recomputed here from them.
sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, CALIBRATION)
from converter import public_figures as fig  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from calibration_csv import Failure, check, read_table  # noqa: E402
import source_extracts as extracts  # noqa: E402  (SOURCES, SIMUMAX: the converter's defaults; main() sets them)


def run_converter(folder):
    subprocess.run([sys.executable, CONVERTER, folder, "--sources", extracts.SOURCES, "--simumax", extracts.SIMUMAX], check=True,
                   stdout=subprocess.PIPE)


def is_measured(path):
    header, _, _ = read_table(path)
    return any(h.lower().startswith("# source: measured") for h in header)


def committed(name):
    return os.path.join(CALIBRATION, name + ".csv")


# ---------------------------------------------------------------------------------------

def converter_is_deterministic():
    with tempfile.TemporaryDirectory() as a, tempfile.TemporaryDirectory() as b:
        run_converter(a)
        run_converter(b)
        for name in TABLES:
            first = open(os.path.join(a, name + ".csv"), "rb").read()
            check(first == open(os.path.join(b, name + ".csv"), "rb").read(), name + ": two runs differ")
            if os.path.exists(committed(name)) and is_measured(committed(name)):
                continue
            check(first == open(committed(name), "rb").read(),
                  name + ".csv differs from the converter's output: rerun python3 kernels/calibration/convert_public.py")


def converter_keeps_measured_tables():
    with tempfile.TemporaryDirectory() as folder:
        measured = ("# gpu: NVIDIA H200\n# source: measured\n"
                    "kernel,dtype,m,n,k,batch,time_s,flops,bytes,tflops,gbps\n"
                    "gemm,bf16,8192,8192,8192,1,0.00145,1099511627776,402653184,757.3,277.4\n")
        with open(os.path.join(folder, "h200.csv"), "w") as f:
            f.write(measured)
        run_converter(folder)
        check(open(os.path.join(folder, "h200.csv")).read() == measured, "the measured h200.csv was rewritten")
        for name in TABLES:
            if name != "h200":
                check(os.path.exists(os.path.join(folder, name + ".csv")), name + ".csv was not written")


def tables_cite_their_sources():
    for name in TABLES:
        path = committed(name)
        if is_measured(path):
            continue
        header, columns, rows = read_table(path)
        check(columns[-1] == "origin" and len(columns) == 12, name + ": no origin column")
        source = [h for h in header if h.startswith("# source:")]
        check(len(source) == 1 and source[0].startswith("# source: converted from public measurements"),
              name + ": source line")
        refs = [h for h in header if h.startswith("# ref ")]
        used = set()
        for r in rows:
            kind, _, what = r["origin"].partition(":")
            check(kind in ("measured", "derived") and what, name + ": bad origin " + r["origin"])
            if kind == "measured":
                used.add(what)
        for repo, commit in COMMITS.items():
            cited = [h for h in refs if (" %s " % repo) in h]
            for h in cited:
                check(any(("@" + c) in h for c in (commit, B200_ARTIFACT_COMMIT) + FP8_ARTIFACT_COMMITS),
                      name + ": commit of " + h)
                check(h.split("@", 1)[1].split(" ")[1] in ("Apache-2.0", "MIT", "BSD-3-Clause", "CC-BY-SA-4.0"),
                      name + ": license")
        repo_of = {"xla": "openxla/xla", "vidur": "microsoft/vidur", "cudnn": "NVIDIA/cudnn-frontend",
                   "llmcompass": "PrincetonUniversity/LLMCompass", "simumax": "MooreThreads/SimuMax",
                   "cudnn-fp8": "NVIDIA/cudnn-frontend", "te": "NVIDIA/TransformerEngine", "ao-nvfp4": "pytorch/ao",
                   "flashinfer-mxfp8": "flashinfer-ai/flashinfer", "torchao-moe": "pytorch/ao",
                   "cudnn-gpt-oss": "NVIDIA/cudnn-frontend"}
        for what in used:
            check(any((" %s " % repo_of[what]) in h for h in refs), name + ": measured:%s without a ref line" % what)
        count = [h for h in header if h.startswith("# rows:")]
        measured = sum(1 for r in rows if r["origin"].startswith("measured:"))
        check(count == ["# rows: %d, measured %d, derived %d" % (len(rows), measured, len(rows) - measured)],
              name + ": rows line")
        for r in rows:
            if r["origin"].startswith("derived:"):
                rule = r["origin"].split(":", 1)[1]
                check(any(h.startswith("# rule derived:%s:" % rule) for h in header), name + ": no rule for " + rule)
        # The sm_90 fp8 rows exceed the H100's fp8 peak and must not appear as measured.
        check(not any(r["dtype"] == "fp8" and r["origin"] == "measured:xla" for r in rows if name != "b200"),
              name + ": sm_90 fp8 rows used as measured")
        for r in rows:
            check("end_to_end" not in r["origin"], name + ": end-to-end factor")
        # Tables derived with Blackwell MAMF ratios cite them (the H100's come from public.md
        # D3); B200's states which
        # measurement times which GEMM shapes.
        if any("mamf" in r["origin"] for r in rows):
            check(any(" stas00/ml-engineering " in h for h in refs), name + ": MAMF rule without its ref line")
        # Every Blackwell table times NVFP4 and MXFP8 GEMMs and FP8 attention by rows of their own,
        # measured on that GPU or derived by a low-precision rule, never by the fp8 rows alone.
        if name in ("b200", "gb200", "b300", "gb300"):
            for kernel, dtype in (("gemm", "nvfp4"), ("gemm", "mxfp8"), ("attention_fwd", "fp8"),
                                  ("attention_bwd", "fp8")):
                origins = {r["origin"] for r in rows if r["kernel"] == kernel and r["dtype"] == dtype}
                check(origins, "%s: no %s %s rows" % (name, dtype, kernel))
                check(all(o.startswith("measured:") or "lowprec" in o or "board" in o or "mamf-ratio" in o or
                          "te-pass" in o or "gb300-cudnn" in o for o in origins),
                      "%s: %s %s origins %r" % (name, dtype, kernel, origins))
        if name == "b200":
            for rule in ("gemm-sources", "gemm-layouts", "attention-sources", "grouped-gemm"):
                check(any(h.startswith("# rule %s: " % rule) for h in header), name + ": no rule " + rule)


def find(rows, kernel, dtype, m, n, k, batch, origin):
    return [i for i, r in enumerate(rows) if r["kernel"] == kernel and r["dtype"] == dtype and r["m"] == m and
            r["n"] == n and r["k"] == k and r["batch"] == batch and r["origin"] == origin]


def interp_log(points, x):
    """Log-log interpolation in [(x, y)], held beyond the ends (the converter's size curves)."""
    xs = [p[0] for p in points]
    if x <= xs[0]:
        return points[0][1]
    if x >= xs[-1]:
        return points[-1][1]
    for (x0, y0), (x1, y1) in zip(points, points[1:]):
        if x0 <= x <= x1:
            f = (math.log(x) - math.log(x0)) / (math.log(x1) - math.log(x0))
            return y0 * (y1 / y0) ** f
    raise AssertionError(x)


def deepgemm_fp8_ratio(sm90, m, k, mamf_fp8, dense_only=False):
    """Rule deepgemm-fp8-gain: fp8 over bf16 time at rows m, depth k, from DeepGEMM's measured
    H800 rates (whole-tile n only) over the H100's XLA bf16 rate at each shape (log-log, each
    coordinate held at XLA's 256..4096), repeats averaged in log, weighted by inverse squared
    distance in (log2 m, log2 k), scaled by the H100/GPU fp8 MAMF and kept in [MAMF ratio, 1].
    dense_only: the plain GEMMs (one group) only, as dense rows take."""
    grid = [256, 512, 1024, 2048, 4096]

    def bf16_rate(b, mm, nn, kk):
        def over_k(mi, ni):
            return interp_log([(g, 2.0 * b * mi * ni * g / sm90[("bf16", b, mi, ni, g)]) for g in grid], kk)
        return interp_log([(gm, interp_log([(gn, over_k(gm, gn)) for gn in grid], nn)) for gm in grid], mm)

    logs = {}
    for groups, gm, gn, gk, tflops in fig.DEEPGEMM_H800_FP8:
        if gn % 128 == 0 and (groups == 1 or not dense_only):
            r = bf16_rate(1 if groups == 1 else min(groups, 4), gm, gn, gk) / (tflops * 1e12)
            logs.setdefault((math.log2(gm), math.log2(gk)), []).append(math.log(r))
    num = den = 0.0
    for (lm, lk), v in logs.items():
        d2 = (math.log2(m) - lm) ** 2 + (math.log2(k) - lk) ** 2
        if d2 == 0:
            num, den = sum(v) / len(v), 1.0
            break
        num += sum(v) / len(v) / d2
        den += 1 / d2
    return min(1.0, max(794.5 / mamf_fp8, math.exp(num / den) * 1402.6 / mamf_fp8))


def ao_bf16_seconds(m, n, k):
    """B200 bf16 time at pytorch/ao#2427's rate for the GEMM's size (side = cube root of m n k)."""
    rate = interp_log([(s, 2.0 * s ** 3 / t) for s, t, _ in fig.AO_B200_NVFP4_CUBES], (m * n * k) ** (1 / 3))
    return 2.0 * m * n * k / rate


def b300_over_b200():
    """Median of TE's four B300 forward bf16 GEMM times over ao's B200 time at the same size."""
    ratios = sorted(t / 1000 / ao_bf16_seconds(m, out, k_in) for (m, k_in, out), t in fig.TE_B300_FPROP_BF16_MS)
    return (ratios[1] + ratios[2]) / 2


def gb200_artifact_bf16():
    """{(kernel, seq, batch x heads)} of GB200's bf16 rows kept from its FP8 artifacts' run."""
    entries = fig.CUDNN_FP8_MS["gb200"]
    bh = fig.CUDNN_FP8_SHAPE["batch"] * fig.CUDNN_FP8_SHAPE["heads"]
    out = set()
    for column, kernel in ((3, "attention_fwd"), (4, "attention_bwd")):
        times = [e[column] for e in entries]
        out |= {(kernel, e[0], bh) for e, keep in zip(entries, extracts.above_host_floor(times)) if keep}
    return out


def lowprec_expected(expect, board, rho, simumax_gemm):
    """The measured low-precision rows and FP8 attention, and the low-precision rules recomputed."""
    for s, _, t in fig.AO_B200_NVFP4_CUBES:
        expect("b200", "gemm", "nvfp4", s, s, s, 1, t, "measured:ao-nvfp4")
        expect("gb200", "gemm", "nvfp4", s, s, s, 1, t * board("nvfp4"), "derived:b200-mamf-ratio")
    for m, n, k, tflops in fig.FLASHINFER_B200_MXFP8:
        t = 2.0 * m * n * k / (tflops * 1e12)
        expect("b200", "gemm", "mxfp8", m, n, k, 1, t, "measured:flashinfer-mxfp8")
        expect("gb200", "gemm", "mxfp8", m, n, k, 1, t * board("mxfp8"), "derived:b200-mamf-ratio")
    g = fig.TORCHAO_B200_MXFP8_GROUPED
    per = g["rows"] / g["groups"]
    for kernel, m, n, k, us in (("grouped_gemm", per, g["ffn"], g["hidden"], g["fwd_us"]),
                                ("grouped_gemm_dgrad", per, g["hidden"], g["ffn"], g["dgrad_us"]),
                                ("grouped_gemm_wgrad", g["hidden"], g["ffn"], per, g["wgrad_us"])):
        expect("b200", kernel, "mxfp8", m, n, k, g["groups"], us * 1e-6, "measured:torchao-moe")
    # B200 nvfp4 at SimuMax's dense shapes: its bf16 time x ao's NVFP4/BF16 ratio at the size.
    nvfp4 = [(s, t4 / t16) for s, t16, t4 in fig.AO_B200_NVFP4_CUBES]
    for kernel, m, n, k, t in simumax_gemm:
        if kernel == "gemm" and m == n == k and any(m == s for s, _ in nvfp4):
            continue  # measured there
        r = interp_log(nvfp4, (m * n * k) ** (1 / 3))
        expect("b200", kernel, "nvfp4", m, n, k, 1, t * r, "derived:b200-lowprec-ratio")
    # B300: TE's forward bf16 GEMMs measured (GB300 on its board); every pass and format's four
    # rows add up to TE's kernel-only pass sum.
    for (tokens, k_in, out), ms in fig.TE_B300_FPROP_BF16_MS:
        expect("b300", "gemm", "bf16", tokens, out, k_in, 1, ms / 1000, "measured:te")
        expect("gb300", "gemm", "bf16", tokens, out, k_in, 1, ms / 1000 * board("bf16"), "derived:b300-board-ratio")
    b300 = read_table(committed("b300"))[2]
    shapes = {"gemm": lambda t, i, o: (t, o, i), "gemm_dgrad": lambda t, i, o: (t, i, o),
              "gemm_wgrad": lambda t, i, o: (i, o, t)}
    for fmt, passes in fig.TE_B300_PASS_MS.items():
        for (p, sum_ms), kernel in zip(sorted(passes.items()), ("gemm_dgrad", "gemm", "gemm_wgrad")):
            if fmt == "bf16" and kernel == "gemm":
                continue
            total = 0.0
            for (tokens, k_in, out), _ in fig.TE_B300_FPROP_BF16_MS:
                m, n, k = shapes[kernel](tokens, k_in, out)
                found = find(b300, kernel, fmt, m, n, k, 1, "derived:te-pass-share")
                check(len(found) == 1, "b300: no te-pass-share row %s %s %dx%dx%d" % (kernel, fmt, m, n, k))
                total += b300[found[0]]["time_s"]
            check(abs(total * 1000 / sum_ms - 1) < 1e-6, "b300 %s %s: rows add to %r ms, TE %r" % (fmt, p, total, sum_ms))
    # cuDNN FP8 attention (host-timed: each column's rows under 10x its shortest dropped); GB200
    # and GB300 with the same runs' bf16 rows; B300 = GB300 x 1822/1745.
    shape = fig.CUDNN_FP8_SHAPE
    bh = shape["batch"] * shape["heads"]
    for gpu, entries in fig.CUDNN_FP8_MS.items():
        for column, kernel, dtype in ((1, "attention_fwd", "fp8"), (2, "attention_bwd", "fp8"),
                                      (3, "attention_fwd", "bf16"), (4, "attention_bwd", "bf16")):
            if dtype == "bf16" and gpu == "b200":
                continue
            times = [e[column] / 1000 for e in entries]
            for e, t, keep in zip(entries, times, extracts.above_host_floor(times)):
                if keep:
                    expect(gpu, kernel, dtype, e[0], e[0], shape["head_dim"], bh, t, "measured:cudnn-fp8")
                    if gpu == "gb300":
                        expect("b300", kernel, dtype, e[0], e[0], shape["head_dim"], bh, t * 1822.0 / 1745.0,
                               "derived:gb300-cudnn")


def converted_rows_equal_source_rows():
    tables = {name: read_table(committed(name))[2] for name in TABLES if not is_measured(committed(name))}
    matched = {name: set() for name in tables}
    checked = 0

    def expect(name, kernel, dtype, m, n, k, batch, seconds, origin):
        """A row of that shape and origin with that time (rel. 1e-8: the tables print 9 digits)."""
        nonlocal checked
        if name not in tables:
            return
        rows = tables[name]
        what = "%s %s %s %gx%gx%gx%g %s" % (name, kernel, dtype, m, n, k, batch, origin)
        found = [i for i in find(rows, kernel, dtype, m, n, k, batch, origin)
                 if abs(rows[i]["time_s"] / seconds - 1) < 1e-8 and i not in matched[name]]
        check(found, "%s: no row with %r" % (what, seconds))
        matched[name].add(found[0])
        checked += 1

    # Blackwell GPUs' rows derived from the B200's: GB200 at the MAMF ratio of the dtype (stas00's
    # maximum achievable matmul TFLOP/s: B200 1745.0 bf16 / 3432.5 fp8, GB200 1822.0 / 3615.6; the
    # fp8 one for mxfp8 and nvfp4 too). B300 (Blackwell Ultra) bf16 and tf32 at its measured ratio
    # over B200 (rho), GB300 the B300 row on the Grace board (the GB200/B200 MAMF gain).
    mamf = {"b200": (1745.0, 3432.5), "gb200": (1822.0, 3615.6)}
    rho = b300_over_b200()
    check(0.9 < rho < 1.0, "B300/B200 bf16 ratio %r" % rho)

    def board(dtype):
        i = 1 if dtype in ("fp8", "mxfp8", "nvfp4") else 0
        return mamf["b200"][i] / mamf["gb200"][i]

    # (GB200's own bf16 rows of the FP8 artifacts' run replace the derived ones at their shapes)
    gb200_own = gb200_artifact_bf16()

    def from_b200(kernel, dtype, m, n, k, batch, t):
        if kernel.startswith("attention") and k == fig.CUDNN_FP8_SHAPE["head_dim"] and (kernel, m, batch) in gb200_own:
            return
        expect("gb200", kernel, dtype, m, n, k, batch, t * board(dtype), "derived:b200-mamf-ratio")
        if not kernel.startswith("attention") and dtype in ("bf16", "tf32"):
            expect("b300", kernel, dtype, m, n, k, batch, t * rho, "derived:b300-over-b200")
            expect("gb300", kernel, dtype, m, n, k, batch, t * rho * board(dtype), "derived:b300-board-ratio")

    # XLA: sm_90 -> H100 measured (no fp8), H200 derived with the same times; sm_100 -> B200,
    # and GB200, GB300, B300 derived at the MAMF ratios.
    sm90 = extracts.xla_times("sm_90")
    for (dtype, b, m, n, k), t in sm90.items():
        if dtype == "fp8" or (dtype == "tf32" and b > 1):
            continue
        kernel = "gemm" if b == 1 else "batched_gemm"
        expect("h100-sxm", kernel, dtype, m, n, k, b, t, "measured:xla")
        expect("h200", kernel, dtype, m, n, k, b, t, "derived:h100-gemm-rate")
        if dtype == "bf16":  # dense and grouped GEMMs: DeepGEMM's measured fp8 gain by rows and depth
            for name, mamf_fp8 in (("h100-sxm", 1402.6), ("h200", 1453.4)):
                dense = b == 1  # dense rows from DeepGEMM's dense GEMMs, grouped ones from all its rows
                expect(name, kernel, "fp8", m, n, k, b, t * deepgemm_fp8_ratio(sm90, m, k, mamf_fp8, dense),
                       "derived:deepgemm-fp8-gain")
                # Dense rows go on beyond XLA's k = 4096 to DeepGEMM's deepest, 16384, from the
                # bf16 rate at 4096 (the base the measured gains are taken against).
                for deep in ((8192, 16384) if b == 1 and k == 4096 else ()):
                    expect(name, kernel, "fp8", m, n, deep, b,
                           t * deep / k * deepgemm_fp8_ratio(sm90, m, deep, mamf_fp8, True),
                           "derived:deepgemm-fp8-gain")
    for (dtype, b, m, n, k), t in extracts.xla_times("sm_100_B200").items():
        if dtype == "tf32" and b > 1:
            continue
        expect("b200", "gemm" if b == 1 else "batched_gemm", dtype, m, n, k, b, t, "measured:xla")
        from_b200("gemm" if b == 1 else "batched_gemm", dtype, m, n, k, b, t)
    # SimuMax: B200 measured, its forward, data- and weight-gradient GEMMs apart; fp8 beyond
    # XLA's 4096 at B200's bf16/fp8 MAMF ratio; the other Blackwells derived from both.
    simumax = extracts.simumax_expected()
    check(len(simumax["gemm"]) == 3 * 144 and len(simumax["grouped"]) == 92 and len(simumax["attention"]) == 38,
          "SimuMax: unexpected entry counts %r" % {key: len(v) for key, v in simumax.items()})
    for kernel, m, n, k, t in simumax["gemm"]:
        expect("b200", kernel, "bf16", m, n, k, 1, t, "measured:simumax")
        from_b200(kernel, "bf16", m, n, k, 1, t)
        if max(m, n, k) > 4096:
            expect("b200", kernel, "fp8", m, n, k, 1, t * 1745.0 / 3432.5, "derived:b200-mamf-fp8-ratio")
            from_b200(kernel, "fp8", m, n, k, 1, t * 1745.0 / 3432.5)
    for kernel, m, n, k, groups, t in simumax["grouped"]:
        expect("b200", kernel, "bf16", m, n, k, groups, t, "measured:simumax")
        from_b200(kernel, "bf16", m, n, k, groups, t)
    # SimuMax's forward spans carry Transformer Engine's host gap between its rng-state kernel and
    # cuDNN's launch: the heads-line intercept through the 16- and 32-head rows at 4096 tokens,
    # per head-dim family (repeats averaged), the mean taken out, never below the FLOPs at the
    # 2250 TFLOP/s peak or one 128-row query tile over all keys on one of 148 SMs.
    by_family = {}
    for kernel, seq, head_dim, bh, t, v_dim in simumax["attention_v"]:
        if kernel == "attention_fwd" and seq == 4096 and bh in (16, 32):
            by_family.setdefault(head_dim, {}).setdefault(bh, []).append(t)
    mean = lambda ts: sum(ts) / len(ts)
    intercepts = [2 * mean(f[16]) - mean(f[32]) for f in by_family.values()]
    check(len(intercepts) == 2 and all(40e-6 < i < 50e-6 for i in intercepts),
          "SimuMax forward host-gap intercepts %r" % intercepts)
    gap = mean(intercepts)
    for kernel, seq, head_dim, bh, t, v_dim in simumax["attention_v"]:
        origin = "measured:simumax"
        if kernel == "attention_fwd":
            flops = seq * seq * bh * (head_dim + v_dim)
            t = max(t - gap, flops / 2250e12, 2 * 128 * seq * (head_dim + v_dim) * 148 / 2250e12)
            origin = "derived:simumax-host-gap"
        expect("b200", kernel, "bf16", seq, seq, head_dim, bh, t, origin)
        from_b200(kernel, "bf16", seq, seq, head_dim, bh, t)
    # Vidur: A100 and H100 measured; the H100's GEMMs reappear in the H200 table.
    for gpu, name in (("a100", "a100-80g"), ("h100", "h100-sxm")):
        for kernel, m, n, k, t in extracts.vidur_expected(gpu):
            expect(name, kernel, "fp16", m, n, k, 1, t, "measured:vidur")
            if gpu == "h100" and kernel == "gemm":
                expect("h200", kernel, "fp16", m, n, k, 1, t, "derived:h100-gemm-rate")
    # LLMCompass: A100, the host-timed floor applied.
    for kernel, m, n, k, t in extracts.llmcompass_expected():
        expect("a100-80g", kernel, "fp16", m, n, k, 1, t, "measured:llmcompass")
    # cuDNN: H200 measured, the H100 with the same times; B200 artifacts (GB200 at the MAMF
    # ratio); GB200 measured (B200 at the inverse ratio, only below B200's shortest measured
    # sequence, SimuMax's 4096).
    attention = extracts.cudnn_expected()
    for kernel, seq, bh, t in attention["h200"]:
        expect("h200", kernel, "bf16", seq, seq, 128, bh, t, "measured:cudnn")
        expect("h100-sxm", kernel, "bf16", seq, seq, 128, bh, t, "derived:h200-cudnn")
    for kernel, seq, bh, t in attention["b200"]:
        expect("b200", kernel, "bf16", seq, seq, 128, bh, t, "measured:cudnn")
        from_b200(kernel, "bf16", seq, seq, 128, bh, t)
    for kernel, seq, bh, t in attention["gb200"]:
        if seq < 4096:
            expect("b200", kernel, "bf16", seq, seq, 128, bh, t * 1822.0 / 1745.0, "derived:gb200-mamf-ratio")
        expect("gb200", kernel, "bf16", seq, seq, 128, bh, t, "measured:cudnn")
    # GB300 measured (B300: the same die on the HGX board, x 1822/1745).
    for kernel, seq, bh, t in attention["gb300"]:
        expect("gb300", kernel, "bf16", seq, seq, 128, bh, t, "measured:cudnn")
        expect("b300", kernel, "bf16", seq, seq, 128, bh, t * 1822.0 / 1745.0, "derived:gb300-cudnn")
    check(attention["gb300"], "no GB300 attention rows read")
    for gpu, f in fig.CUDNN_GPT_OSS.items():  # head dim 64, windowed (the rest: convert_head_dim_test.py)
        for seq, fwd_ms, bwd_ms in f["ms"]:
            for kernel, ms in (("attention_fwd", fwd_ms), ("attention_bwd", bwd_ms)):
                expect(gpu, kernel, "bf16", seq, f["window"], 64, f["batch"] * f["heads"], ms / 1e3,
                       "measured:cudnn-gpt-oss")
    lowprec_expected(expect, board, rho, simumax["gemm"])
    check(checked > 2000, "only %d rows checked" % checked)
    # And the other way round: every measured row of a table is one of the source rows above.
    for name, rows in tables.items():
        unmatched = [i for i, r in enumerate(rows) if r["origin"].startswith("measured:") and i not in matched[name]]
        check(not unmatched, "%s: %d measured rows match no source row, e.g. %r"
              % (name, len(unmatched), [rows[i] for i in unmatched[:2]]))


CHECKS = {
    "ConverterIsDeterministic": converter_is_deterministic,
    "ConvertedRowsEqualSourceRows": converted_rows_equal_source_rows,
    "ConverterKeepsMeasuredTables": converter_keeps_measured_tables,
    "TablesCiteTheirSources": tables_cite_their_sources,
}
# The checks that run the converter or parse the extracts (and SimuMax's file).
NEED_SOURCES = {"ConverterIsDeterministic", "ConvertedRowsEqualSourceRows", "ConverterKeepsMeasuredTables"}


def main():
    parser = argparse.ArgumentParser(description="Checks kernels/calibration/convert_public.py.")
    parser.add_argument("checks", nargs="*", metavar="CHECK", help="one of %s (default: all)" % ", ".join(sorted(CHECKS)))
    parser.add_argument("--sources", default=extracts.SOURCES, metavar="DIR", help="the third-party extracts")
    parser.add_argument("--simumax", metavar="DIR",
                        help="SimuMax's B200 file's folder (default: simumax/ beside the --sources folder)")
    args = parser.parse_args()
    for name in args.checks:
        if name not in CHECKS:
            parser.error("no check named %s" % name)
    extracts.SOURCES = os.path.normpath(args.sources)
    extracts.SIMUMAX = os.path.normpath(args.simumax or os.path.join(os.path.dirname(extracts.SOURCES), "simumax"))
    failed = skipped = 0
    for name in args.checks or sorted(CHECKS):
        missing = [path for path in (extracts.SOURCES, os.path.join(extracts.SIMUMAX, "b200_bf16_ceperm.json"))
                   if not os.path.exists(path)]
        if name in NEED_SOURCES and missing:
            skipped += 1
            print("skip %s: needs %s: the third-party measurements the tables are converted from, beside the "
                  "checkout in ../shared/data/ (calibration-sources/, simumax/); CI has them"
                  % (name, " and ".join(missing)))
            continue
        try:
            CHECKS[name]()
            print("ok   " + name)
        except Failure as e:
            failed += 1
            print("FAIL %s: %s" % (name, e))
    return 1 if failed else SKIP_CODE if skipped else 0


if __name__ == "__main__":
    sys.exit(main())
