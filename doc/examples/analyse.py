#!/usr/bin/env python3
"""analyse.py: cdyn's output in pandas, with the units of its metadata.

Every CSV that cdyn writes has a record beside it, NAME.meta.json, whose
"column_info" gives each column's unit and meaning; a run directory is
complete when its run.meta.json exists.  This script reads both:

  analyse.py run DIR [--column e]
      every run's time series of COLUMN (default e, the constraint error
      e_n) from a run directory (`cdyn run EXPERIMENT` or `cdyn run scene`),
      gathered into one long table (run, step, t, COLUMN), and per run its
      steps, last time, largest and last value.
  analyse.py sweep DIR [--value e_max] [--agg max]
      a sweep's collected table (DIR/collected-*.csv, `cdyn collect DIR`),
      VALUE aggregated over the rows of each point of the sweep.

--csv prints the table as CSV (every digit) instead of aligned text;
--plot FILE draws it with matplotlib (only then imported).  Bad input gives
one line on stderr and exit status 1.  doc/pandas.md explains it.
"""
import argparse
import glob
import json
import os
import sys

import pandas as pd


class InputError(Exception):
    """Input that is not what cdyn writes: reported in one line."""


def read_meta(csv_path):
    """The .meta.json record of a CSV file (NAME.csv -> NAME.meta.json)."""
    path = csv_path[: -len(".csv")] + ".meta.json"
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except OSError as e:
        raise InputError("%s: no metadata record (%s)" % (csv_path, e.strerror))


def load_csv(path, meta=None):
    """A CSV as a DataFrame, its columns' units and meanings in df.attrs."""
    meta = meta if meta is not None else read_meta(path)
    df = pd.read_csv(path, float_precision="round_trip")
    info = meta.get("column_info", [])
    df.attrs["units"] = {c["name"]: c["unit"] for c in info}
    df.attrs["meanings"] = {c["name"]: c["meaning"] for c in info}
    return df


def label(name, units):
    """A column name with its unit: 'e [m]'; '[1]' is a ratio or count."""
    unit = units.get(name)
    return "%s [%s]" % (name, unit) if unit else name


def run_name(meta, path):
    """The run a file belongs to: an experiment's file names it in "run";
    a scene's per-run file is SCENE-RUN.csv."""
    if isinstance(meta.get("run"), dict) and "name" in meta["run"]:
        return meta["run"]["name"]
    base = os.path.basename(path)[: -len(".csv")]
    scene = meta.get("scene_name")
    if scene and base.startswith(scene + "-"):
        return base[len(scene) + 1 :]
    return base


def load_run_dir(d, column):
    """The long table (run, step, t, column) of every run's time series of
    `column` in run directory d, its units, and the run's metadata."""
    try:
        with open(os.path.join(d, "run.meta.json"), encoding="utf-8") as f:
            run_meta = json.load(f)
    except OSError:
        raise InputError("%s: not a complete cdyn run (no run.meta.json)" % d)
    frames, units, meanings = [], {}, {}
    for path in sorted(glob.glob(os.path.join(d, "*.csv"))):
        if not os.path.exists(path[: -len(".csv")] + ".meta.json"):
            continue  # claims.part.csv: the verdicts, not data
        meta = read_meta(path)
        columns = meta.get("columns", "").split(",")
        # One run's time series: a row per step, no particle index.
        if "run" in columns or "particle" in columns or not {"t", column} <= set(columns):
            continue
        df = load_csv(path, meta)
        cols = [c for c in ("step", "t", column) if c in df.columns]
        part = df[cols].copy()
        part.insert(0, "run", run_name(meta, path))
        frames.append(part)
        units.update(df.attrs["units"])
        meanings.update(df.attrs["meanings"])
    if not frames:
        raise InputError("%s: no run's file has the columns t and %s" % (d, column))
    long = pd.concat(frames, ignore_index=True)
    long.attrs["units"] = units
    long.attrs["meanings"] = meanings
    return long, run_meta


def run_summary(long, column):
    """Per run: steps recorded, the last time, the largest and the last value."""
    units = long.attrs["units"]
    g = long.groupby("run", sort=True)
    table = pd.DataFrame(
        {
            "rows": g.size(),
            label("t_end", {"t_end": units.get("t", "")}): g["t"].max(),
            label("max " + column, {"max " + column: units.get(column, "")}): g[column].max(),
            label("last " + column, {"last " + column: units.get(column, "")}): g[column].last(),
        }
    )
    return table


def load_sweep(d):
    """A sweep's collected table, the names of its point columns, the units of
    the jobs' file (from the first job's record of it) and the file's name."""
    paths = sorted(glob.glob(os.path.join(d, "collected-*.csv")))
    if not paths:
        raise InputError("%s: no collected table (run `cdyn collect %s` first)" % (d, d))
    if len(paths) > 1:
        raise InputError("%s: %d collected tables; name one with --file" % (d, len(paths)))
    return load_collected(paths[0])


def load_collected(path):
    meta = read_meta(path)
    df = pd.read_csv(path, float_precision="round_trip")
    points = [c for c in meta["point_columns"].split(",") if c != "job"]
    units = {}
    jobs = sorted(glob.glob(os.path.join(os.path.dirname(path), "jobs", "*", meta["file"])))
    if jobs:
        units = load_csv(jobs[0]).attrs["units"]
    df.attrs["units"] = units
    return df, points, meta["file"]


def sweep_table(df, points, value, agg):
    """VALUE aggregated (agg: max, min, mean, last ...) over each point's rows;
    the last point column (often point.h) across, the others down."""
    if value not in df.columns:
        raise InputError("the collected table has no column %s (it has %s)" % (value, ", ".join(df.columns)))
    table = df.groupby(points, sort=True)[value].agg(agg)
    if len(points) > 1:
        table = table.unstack(points[-1])
    return table


def plot(data, xcol, ycol, by, units, path):
    """One line of ycol against xcol per value of `by` (a column, a list of
    them, or None: one line); needs matplotlib."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots()
    groups = data.groupby(by, sort=True) if by else [(ycol, data)]
    for name, part in groups:
        ax.plot(part[xcol], part[ycol], marker="o" if len(part) < 20 else None, label=str(name))
    ax.set_xlabel(label(xcol, units))
    ax.set_ylabel(label(ycol, units))
    ax.legend()
    fig.savefig(path)


def main(argv):
    ap = argparse.ArgumentParser(description="cdyn's output in pandas, with units.")
    sub = ap.add_subparsers(dest="what", required=True)
    r = sub.add_parser("run", help="a run directory: each run's time series")
    r.add_argument("dir")
    r.add_argument("--column", default="e", help="the column to compare (default e)")
    s = sub.add_parser("sweep", help="a sweep directory: its collected table by point")
    s.add_argument("dir")
    s.add_argument("--file", help="the collected table, if the sweep has several")
    s.add_argument("--value", default="e_max", help="the column to aggregate (default e_max)")
    s.add_argument("--agg", default="max", help="how: max, min, mean, last ... (default max)")
    for p in (r, s):
        p.add_argument("--csv", action="store_true", help="print CSV, every digit")
        p.add_argument("--plot", metavar="FILE", help="draw it into FILE (needs matplotlib)")
    args = ap.parse_args(argv)

    if args.what == "run":
        long, meta = load_run_dir(args.dir, args.column)
        table = run_summary(long, args.column)
        title = "%s: %s (%s), %d runs; %s: %s" % (
            args.dir,
            meta.get("run_of", "?"),
            meta.get("source", ""),
            len(table),
            label(args.column, long.attrs["units"]),
            long.attrs["meanings"].get(args.column, ""),
        )
        if args.plot:
            plot(long, "t", args.column, "run", long.attrs["units"], args.plot)
    else:
        if args.file:
            df, points, name = load_collected(os.path.join(args.dir, args.file))
        else:
            df, points, name = load_sweep(args.dir)
        table = sweep_table(df, points, args.value, args.agg)
        title = "%s: %s of %s per point (%s), from %s" % (
            args.dir,
            args.agg,
            label(args.value, df.attrs["units"]),
            ", ".join(points),
            name,
        )
        if args.plot:
            flat = df.groupby(points, sort=True)[args.value].agg(args.agg).reset_index()
            by = points[:-1]
            plot(flat, points[-1], args.value, by[0] if len(by) == 1 else by or None, df.attrs["units"], args.plot)

    if args.csv:
        table.to_csv(sys.stdout, float_format="%.17g")
    else:
        print(title)
        print(table.to_string(float_format=lambda x: "%.4g" % x))
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except InputError as e:
        print("analyse.py: %s" % e, file=sys.stderr)
        sys.exit(1)
