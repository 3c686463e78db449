#!/usr/bin/env python3
"""Runs every trainsim command the READMEs show and compares their sample outputs.

A README shows commands in ```sh blocks (one a line, `\\` continues it) and, in plain ```
blocks, what they print: a sample is matched to the first command before it whose output
holds the sample's first line, and then every line of the sample must be a line of that
output, in order (a line `...` skips any number of lines). `$ COMMAND` lines inside a plain
block are commands whose output is the rest of the block (error examples: any exit code).
The simulation's own wall time is masked; every other figure must be what the build prints,
so a stale figure fails.

The commands run as a user of a clone runs them: from a scratch copy of the checkout's
layout (its files copied, `build/trainsim` the build's executable), files they write land
there, `/tmp/` becomes a scratch folder. A command that reads `../shared/data/` runs only where
that folder is given (`--shared-data`); otherwise it is reported as not run.

Usage: readme_commands.py --trainsim EXE --source DIR [--shared-data DIR] [--readme PATH ...]
Exit status: 0 all commands ran and every sample matched, 1 otherwise.
"""

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field

# The READMEs whose commands run, in the order a reader takes the tour.
READMES = [
    "README.md",
    "scenarios/README.md",
    "models/README.md",
    "topologies/README.md",
    "sim/README.md",
    "sim/step/README.md",
    "sim/engine/README.md",
    "sim/run/README.md",
    "sim/drill/README.md",
    "sim/sweep/README.md",
    "bench/README.md",
    "tests/fuzz/README.md",
    "docs/engineering/next-developer.md",
    "docs/outputs-and-limits.md",
    "docs/megatron-names.md",
    "kernels/README.md",
    "kernels/calibration/README.md",
    "analysis/README.md",
    "analysis/SCHEMA.md",
    "scenarios/validation/README.md",
    "sim/workload/README.md",
]

# Commands shown but not run here, each with why. Matched against the command's text.
NOT_RUN = [
    ("scripts/bootstrap.sh", "installs packages and builds: what CI itself runs"),
    ("scenarios/validation/table.py", "runs every validation row: the test Docs.ValidationTableIsCurrent"),
    ("nvcc ", "builds the CUDA calibrator: needs the CUDA Toolkit and a GPU"),
    ("trainsim-calibrate", "runs on a GPU"),
    ("cmake ", "builds trainsim: what CI itself runs"),
    ("ctest ", "runs the tests: what CI itself runs"),
    ("/shared/sweep", "submits to a Slurm cluster: the SweepSlurm tests run it against a local one"),
    ("/opt/trainsim", "an install: Install.AMovedInstallTreeGivesTheBuildTreesOutput runs one in a scratch prefix"),
    ("build-fuzz/", "a fuzzing campaign: the fuzz build runs its corpus in CI"),
    ("trainsim-bench-", "a benchmark: its figures are one machine's timings"),
    ("h200-layer-llama3-70b.csv", "the layer table a GPU measures first (kernels/README.md)"),
    ("train.json", "DeepSeek's profile, which has no license: the user fetches it"),
    ("trace.json.gz", "the user's own profiler trace"),
]

# What varies from run to run: the simulation's wall time.
WALL_TIME = [
    (re.compile(r"simulated in [0-9.]+ (s|ms|us)"), "simulated in <wall>"),
    (re.compile(r"wall time [0-9.]+ (s|ms|us)"), "wall time <wall>"),
    (re.compile(r"in [0-9.]+ s of wall time"), "in <wall> s of wall time"),
]

# A word the user replaces (SCENARIO, /path/), not an environment variable being set.
PLACEHOLDER = re.compile(r"\b[A-Z][A-Z_]{2,}\b(?!=)|<[a-z_]+>|/path/")


@dataclass
class Command:
    readme: str
    line: int
    text: str
    any_exit: bool = False  # a `$ ` example: errors are what it shows
    folder: str = "."  # where it runs, in the checkout (a `cd` line before it in its block)
    expected: list = field(default_factory=list)  # the block's lines after a `$ ` command
    output: str = ""
    ran: bool = False


@dataclass
class Sample:
    readme: str
    line: int
    lines: list
    commands: list  # the commands shown before it, nearest first


def mask(text):
    for pattern, replacement in WALL_TIME:
        text = pattern.sub(replacement, text)
    return text.rstrip()


def parse(readme, text):
    """The commands, samples and example files (an ```ini block whose first line is
    `# NAME.ini`) of one README, in order."""
    commands, samples, files = [], [], {}
    lines = text.split("\n")
    i = 0
    while i < len(lines):
        fence = re.match(r"^```(\w*)\s*$", lines[i])
        if not fence:
            i += 1
            continue
        lang, start = fence.group(1), i + 1
        j = start
        while j < len(lines) and not lines[j].startswith("```"):
            j += 1
        body = lines[start:j]
        named = re.match(r"^# ([\w.-]+\.ini)\b", body[0]) if body else None
        folder = "."
        if lang == "ini" and named:
            files[named.group(1)] = "\n".join(body) + "\n"
        elif lang == "sh":
            k = 0
            while k < len(body):
                line, first = body[k], k
                while line.rstrip().endswith("\\") and k + 1 < len(body):
                    k += 1
                    line = line.rstrip()[:-1] + " " + body[k].strip()
                k += 1
                line = strip_comment(line).strip()
                if re.fullmatch(r"cd \S+", line):
                    folder = line[3:]  # where the block's next commands run
                elif line:
                    commands.append(Command(readme, start + first + 1, line, folder=folder))
        elif lang == "":
            if body and body[0].startswith("$ "):
                current = None
                for n, line in enumerate(body):
                    if line.startswith("$ "):
                        current = Command(readme, start + n + 1, line[2:].strip(), any_exit=True)
                        commands.append(current)
                    elif current is not None:
                        current.expected.append(line)
            elif body and body[0].startswith(("trainsim ", "#        size")) or looks_printed(body, commands):
                samples.append(Sample(readme, start + 1, body, list(reversed(commands))))
        i = j + 1
    return commands, samples, files


def looks_printed(body, commands):
    """A plain block after a trainsim command that is not a file format or a shell line."""
    if not body or not commands:
        return False
    first = body[0]
    if first.startswith(("#", "[", "kernel,", "nvcc", "cp ", "cmake", "build/")):
        return False
    return bool(re.match(r"^[a-z][a-z /,()-]*\s{2,}\S", first) or first.startswith(("replay time", "run of ")))


def strip_comment(line):
    """The command without a trailing `# comment` (a # inside quotes stays)."""
    quote = None
    for n, ch in enumerate(line):
        if ch in "'\"":
            quote = None if quote == ch else (quote or ch)
        elif ch == "#" and quote is None and (n == 0 or line[n - 1].isspace()):
            return line[:n]
    return line


def not_run_reason(command, shared):
    for needle, why in NOT_RUN:
        if needle in command.text:
            return why
    if "../shared/" in command.text and shared is None:
        return "needs ../shared/data beside the checkout"
    if PLACEHOLDER.search(command.text):
        return "a placeholder the user fills in"
    return None


def scratch_checkout(source, exe, shared):
    """A folder laid out as a clone: its files copied, build/trainsim the build's executable."""
    root = tempfile.mkdtemp(prefix="trainsim-readme-")
    checkout = os.path.join(root, "trainsim")
    os.makedirs(os.path.join(checkout, "build"))
    for name in os.listdir(source):
        if name in ("build", ".git") or name.startswith("."):
            continue
        # Copies, so that what a command writes beside its inputs (a notebook's trace path
        # ../../trace.h5 from analysis/notebooks) lands in the scratch checkout.
        if os.path.isdir(os.path.join(source, name)):
            shutil.copytree(os.path.join(source, name), os.path.join(checkout, name), symlinks=True)
        else:
            shutil.copy2(os.path.join(source, name), os.path.join(checkout, name))
    os.symlink(exe, os.path.join(checkout, "build", "trainsim"))
    if shared:
        os.makedirs(os.path.join(root, "shared"))
        os.symlink(shared, os.path.join(root, "shared", "data"))
    os.makedirs(os.path.join(root, "tmp"))
    return root, checkout


def run(command, checkout, tmp):
    text = command.text.replace("/tmp/", tmp + "/")
    env = dict(os.environ, LC_ALL="C")
    done = subprocess.run(["bash", "-c", text], cwd=os.path.join(checkout, command.folder), env=env, capture_output=True, text=True,
                          timeout=900)
    command.output = done.stdout + done.stderr
    command.ran = True
    if done.returncode != 0 and not command.any_exit:
        return f"exit {done.returncode}: {done.stderr.strip()[-400:]}"
    if command.expected:
        want = [mask(l) for l in command.expected if l.strip()]
        got = [mask(l) for l in command.output.replace(tmp + "/", "/tmp/").split("\n") if l.strip()]
        problem = compare(want, got)
        if problem:
            return problem
    return None


def compare(want, got):
    """None when every line of `want` is a line of `got`, in order (`...` skips)."""
    at, gap = 0, False
    for line in want:
        if line.strip() == "...":
            gap = True
            continue
        if gap:
            while at < len(got) and got[at] != line:
                at += 1
        if at >= len(got) or got[at] != line:
            near = got[at] if at < len(got) else "(end of output)"
            return f"the README says\n    {line}\n  the build prints\n    {near}"
        at += 1
        gap = False
    return None


def check_sample(sample, tmp):
    want = [mask(l) for l in sample.lines if l.strip()]
    first = next((l for l in want if l.strip() != "..."), None)
    nearest = None
    for command in sample.commands:
        if not command.ran:
            continue
        got = [mask(l) for l in command.output.replace(tmp + "/", "/tmp/").split("\n") if l.strip()]
        if first not in got:
            continue
        problem = compare(want, got[got.index(first):])
        if problem is None:
            return None
        nearest = nearest or f"(from `{command.text}`) {problem}"
    return nearest or f"no command before it printed its first line\n    {first}"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--trainsim", required=True)
    parser.add_argument("--source", required=True)
    parser.add_argument("--shared-data", help="the third-party data folder (../shared/data); absent: commands that read it skip")
    parser.add_argument("--readme", action="append", help="only these READMEs (paths in the source tree)")
    args = parser.parse_args()
    shared = os.path.abspath(args.shared_data) if args.shared_data and os.path.isdir(args.shared_data) else None
    root, checkout = scratch_checkout(os.path.abspath(args.source), os.path.abspath(args.trainsim), shared)
    tmp = os.path.join(root, "tmp")
    failures, skipped, ran, matched = [], [], 0, 0
    try:
        for readme in args.readme or READMES:
            path = os.path.join(args.source, readme)
            if not os.path.exists(path):
                continue
            with open(path, encoding="utf-8") as f:
                commands, samples, files = parse(readme, f.read())
            for name, text in files.items():
                with open(os.path.join(checkout, name), "w", encoding="utf-8") as f:
                    f.write(text)
            for command in commands:
                why = not_run_reason(command, shared)
                if why:
                    skipped.append(f"{readme}:{command.line}: {command.text}  [{why}]")
                    continue
                problem = run(command, checkout, tmp)
                ran += 1
                if problem:
                    failures.append(f"{readme}:{command.line}: `{command.text}`: {problem}")
            for sample in samples:
                problem = check_sample(sample, tmp)
                if problem and all(not c.ran for c in sample.commands[:1]):
                    skipped.append(f"{readme}:{sample.line}: sample  [its command did not run here]")
                    continue
                if problem:
                    failures.append(f"{readme}:{sample.line}: sample: {problem}")
                else:
                    matched += 1
    finally:
        shutil.rmtree(root, ignore_errors=True)
    for line in skipped:
        print("not run:", line)
    for line in failures:
        print("FAILED:", line)
    print(f"{ran} commands ran, {matched} samples matched, {len(skipped)} not run, {len(failures)} failed")
    if ran == 0 or matched == 0:
        print("FAILED: no README command ran or no sample matched: the parser no longer reads the READMEs")
        return 1
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
