#!/usr/bin/env python3
"""Turn kstream benchmark results (Google Benchmark JSON, from bench/ or scripts/triton_compare.py) into a
markdown report with tables and bandwidth-vs-size plots.

    python3 scripts/report.py RESULT.json [RESULT.json ...] --out docs/results.md [--plots docs/plots]
                              [--peak Cuda=4800] [--title "..."] [--compare]
    python3 scripts/report.py --merge PART.json [PART.json ...] --out ONE.json

Benchmark names read op/variant/type/backend/[layout/]n (no layout segment: aligned). The report opens with a
headline table (largest n of each run; --compare puts the GPU-against-host tables and figure of one CUDA run and
one host-only run first), then fusion, Kokkos Kernels' BLAS-1 beside kstream, operand layouts, views of several
dimensions (layout segment nd-<case>: kstream's fraction of its rank-1 call, MDRange, the row peers), several GPUs (kstream_mpi_bench: names
op/tiled/type/backend/weak|strong/n with a ranks counter), chains of small calls and launch floor. For each backend, type and op the report gives GB/s per size,
the speedup of kstream's tiled kernel over the naive Kokkos baseline, its ratio to each peer, and its share of
the copy bandwidth; ratios are only formed between results of one file (one run). Needs matplotlib for plots.
"""
import argparse
import json
import os
import statistics
import sys
from collections import defaultdict

KSTREAM = "tiled"
BASELINE = "naive"
COPY_VARIANTS = ("kokkos_deep_copy", "cudaMemcpy", "omp_for")
# Fusion: (op, fused variant, unfused variant, arrays the unfused one moves / arrays the fused one moves).
FUSION = [("fma", "naive", "unfused_naive", 6 / 4), ("fma", "tiled", "unfused_naive", 6 / 4),
          ("chain", "fused_naive", "separate_naive", 10 / 4), ("chain", "fused_tiled", "separate_naive", 10 / 4),
          ("update_norm", "fused_tiled", "separate_tiled", 4 / 3)]
FUSION_MIN_N = 1 << 20  # below this, launch overhead, not bytes, sets the time
LAUNCH_FLOOR_N = 4096


def read_json(path, keys, kind):
    """A JSON file that must hold `keys`; ValueError naming the file and what it lacks otherwise."""
    with open(path) as f:
        data = json.load(f)
    if not all(k in data for k in keys):
        raise ValueError(f"{path}: not a {kind} JSON file (no {'/'.join(repr(k) for k in keys)})")
    return data


def load(path):
    data = read_json(path, ("benchmarks", "context"), "Google Benchmark")
    cuda_build = "Cuda" in data["context"].get("kstream.backends", "")
    samples = defaultdict(list)
    medians = {}
    per_call = {}
    launches = {}  # kstream's device reductions: the kernels one call launched (counter `launches`)
    cv = {}  # the repetitions' coefficient of variation (Google Benchmark's `cv` aggregate), a fraction
    scaling = defaultdict(list)  # kstream_mpi_bench: (backend, type, op, mode, n, ranks) -> GB/s samples
    for b in data["benchmarks"]:
        name = b.get("run_name", b["name"])
        parts = name.split("/")
        if len(parts) < 5:
            continue
        if "ranks" in b or data["context"].get("mpi.ranks"):  # op/tiled/type/backend/weak|strong/n, ranks counter
            if b.get("error_occurred"):
                print(f"warning: {path}: {name}: {b.get('error_message', 'error')}", file=sys.stderr)
            elif b.get("run_type") != "aggregate" and "GB/s" in b:
                scaling[(parts[3], parts[2], parts[0], parts[4], int(parts[5]), int(b["ranks"]))].append(b["GB/s"])
            continue
        layout = "aligned"
        if len(parts) >= 6 and not parts[4].isdigit():  # op/variant/type/backend/layout/n
            layout = parts.pop(4)
        if b.get("error_occurred"):
            print(f"warning: {path}: {name}: {b.get('error_message', 'error')}", file=sys.stderr)
            continue
        gbps = b.get("GB/s")
        if gbps is None:
            continue
        backend = parts[3]
        if backend != "Cuda" and cuda_build:  # host code compiled through nvcc: not what a host-only build runs
            backend += " (CUDA build)"
        key = (backend, parts[2], parts[0], parts[1], int(parts[4]))  # backend, type, op, variant, n
        if layout != "aligned":
            key = key[:3] + (f"{key[3]}@{layout}",) + key[4:]  # a layout other than aligned: its own variant
        if "launches" in b and b.get("aggregate_name", "median") == "median":
            launches[key] = int(round(b["launches"]))
        if b.get("run_type") == "aggregate":
            if b.get("aggregate_name") == "median":
                medians[key] = (gbps, b.get("real_time"), b.get("time_unit"))
                if "us_per_call" in b:
                    per_call[key] = b["us_per_call"]
            elif b.get("aggregate_name") == "cv":
                cv[key] = b.get("real_time")
        else:
            samples[key].append((gbps, b.get("real_time"), b.get("time_unit"), b.get("us_per_call")))
    rows = dict(medians)
    for key, values in samples.items():
        if key not in rows:
            values = sorted(values)
            rows[key] = values[len(values) // 2][:3]
            per_call.setdefault(key, values[len(values) // 2][3])
        times = [v[1] for v in values if v[1]]
        if len(times) > 1:
            cv.setdefault(key, statistics.stdev(times) / statistics.mean(times))
    return {"path": path, "context": data["context"], "rows": rows, "per_call": per_call, "launches": launches,
            "cv": cv,
            "scaling": {k: statistics.median(v) for k, v in scaling.items()},
            "before_after": {k: v for k, v in data.items() if k.endswith("_before_after") and isinstance(v, dict)
                             and isinstance(v.get("rows"), list)}}


def describe_source(src, index):
    c = src["context"]
    device = ", ".join(x for x in (c.get("kstream.gpu"), c.get("kstream.cpu_model")) if x) or "?"
    lines = [f"**[{index}] `{os.path.basename(src['path'])}`**: {c.get('date', '?')} on `{c.get('host_name', '?')}`,"
             f" {device}"]
    facts = []
    for key, label in (("kstream.commit", "commit"), ("kstream.kokkos_version", "Kokkos"),
                       ("kstream.backends", "backends"), ("kstream.cuda.runtime", "CUDA runtime"),
                       ("kstream.build.kind", "build"), ("kstream.build.compiler", "compiler"),
                       ("kstream.build.host_arch", "host arch"), ("kstream.gpu.driver", "driver"), ("kstream.cuda.driver_api", "driver API"),
                       ("kstream.cuda.cccl", "CCCL"),
                       ("torch_version", "PyTorch"), ("triton_version", "Triton"),
                       ("env.OMP_NUM_THREADS", "OMP_NUM_THREADS"), ("env.OMP_PROC_BIND", "OMP_PROC_BIND"),
                       ("env.OMP_PLACES", "OMP_PLACES"), ("kstream.concurrency.host", "host threads")):
        if key in c:
            facts.append(f"{label} {c[key]}")
    lines.append("  " + ", ".join(facts))
    if "kstream.command" in c:
        lines.append(f"  command: `{c['kstream.command']}`")
    return "\n".join(lines)


def fmt(x, digits=0):
    return "–" if x is None else f"{x:,.{digits}f}"


def ratio(a, b):
    return None if a is None or b is None or b == 0 else a / b


def groups(sources):
    """(backend, type, op) -> {variant: {n: (gbps, source index)}} over all sources, aligned layout only; where two
    sources measured the same row, the first given keeps it."""
    out = defaultdict(lambda: defaultdict(dict))
    for i, src in enumerate(sources, 1):
        for (backend, typ, op, variant, n), (gbps, _, _) in src["rows"].items():
            if "@" not in variant:
                out[(backend, typ, op)][variant].setdefault(n, (gbps, i))
    return out


PEERS = ("cub_transform", "omp_for", "cuda_kernel")  # native peers, best first when several ran
# Kokkos Kernels' BLAS-1 beside the kstream call that moves the same bytes: (op, kstream variant, its variant, what).
KOKKOS_KERNELS_PAIRS = [
    ("add", "tiled", "kokkosblas", "out = x + y: `kstream::add` / `KokkosBlas::update(1, x, 1, y, 0, out)`"),
    ("add", "tiled_inplace", "kokkosblas_inplace", "y += x: `kstream::add(x, y, y)` / `KokkosBlas::axpby(1, x, 1, y)`"),
    ("fma", "tiled_inplace", "kokkosblas_inplace",
     "c += a * b: `kstream::fma(a, b, c, c)` / `KokkosBlas::mult(1, c, 1, a, b)`"),
]
KOKKOS_KERNELS_MIN_N = 1 << 20


def best_peer(rows, backend, typ, op, n, layout=None):
    """(name, GB/s) of the fastest native peer in one source's rows, or (None, None)."""
    found = []
    for peer in PEERS:
        variant = peer if layout in (None, "aligned") else f"{peer}@{layout}"
        if (backend, typ, op, variant, n) in rows:
            found.append((rows[(backend, typ, op, variant, n)][0], peer))
    if not found:
        return None, None
    gbps, name = max(found)
    return name, gbps


def headline(sources):
    """One row per backend, type and op at the largest aligned n of each source: the answer first."""
    lines = ["| backend | op | type | n | kstream tiled GB/s | naive Kokkos | best native peer | tiled / naive | "
             "tiled / peer | tiled % of copy | source |", "|---|---|---|---|---|---|---|---|---|---|---|"]
    for i, src in enumerate(sources, 1):
        rows = src["rows"]
        keys = {(b, t, o) for (b, t, o, v, n) in rows if v == KSTREAM and o in ("add", "fma")}
        for backend, typ, op in sorted(keys, key=lambda k: (k[0], k[2], k[1] != "float", k[1])):
            n = max(n for (b, t, o, v, n) in rows if (b, t, o, v) == (backend, typ, op, KSTREAM))
            tiled = rows[(backend, typ, op, KSTREAM, n)][0]
            naive = rows.get((backend, typ, op, BASELINE, n), (None,))[0]
            peer, peer_gbps = best_peer(rows, backend, typ, op, n)
            copy = copy_rate(sources, backend, typ, n, i)
            lines.append(f"| {backend} | {op} | {typ} | {n:,} | {fmt(tiled)} | {fmt(naive)} | "
                         f"{(peer + ' ' + fmt(peer_gbps)) if peer else '–'} | {fmt(ratio(tiled, naive), 2)}x | "
                         f"{fmt(ratio(tiled, peer_gbps), 3)}x | {fmt(100 * ratio(tiled, copy), 1) if copy else '–'} | "
                         f"[{i}] |")
    return lines if len(lines) > 2 else []


def kokkos_kernels_rows(sources):
    """kstream against Kokkos Kernels' BLAS-1 on the same bytes, from n = 2^20, each pair from one source."""
    lines = []
    for i, src in enumerate(sources, 1):
        rows = src["rows"]
        cases = sorted({(b, t, n) for (b, t, o, v, n) in rows if v == "kokkosblas" and n >= KOKKOS_KERNELS_MIN_N},
                       key=lambda k: (k[0], k[1] != "float", k[1], k[2]))
        for backend, typ, n in cases:
            for op, ours, theirs, what in KOKKOS_KERNELS_PAIRS:
                a = rows.get((backend, typ, op, ours, n), (None,))[0]
                b = rows.get((backend, typ, op, theirs, n), (None,))[0]
                if a is None and b is None:
                    continue
                lines.append(f"| {backend} | {typ} | {n:,} | {what} | {fmt(a)} | {fmt(b)} | "
                             f"{fmt(ratio(a, b), 2)}x | [{i}] |")
    if not lines:
        return []
    version = next((s["context"].get("kstream.kokkos_kernels") for s in sources
                    if s["context"].get("kstream.kokkos_kernels", "").split(".")[0].isdigit()), "?")
    return ["## Kokkos Kernels' BLAS-1", "",
            f"kstream beside the Kokkos Kernels ({version}) call a Kokkos user would write for the same operation, "
            "on the same views in the same run; each pair moves the same bytes (add 3, fma 4 arrays).", "",
            "| backend | type | n | operation: kstream / Kokkos Kernels | kstream GB/s | Kokkos Kernels GB/s | "
            "kstream / Kokkos Kernels | source |", "|---|---|---|---|---|---|---|---|"] + lines + [""]


def is_host_only(src):
    return "Cuda" not in src["context"].get("kstream.backends", "")


def compare_sources(sources):
    """(GPU source index, host-only source index) for --compare: the first CUDA run and the first host-only run."""
    gpu = next((i for i, s in enumerate(sources, 1) if not is_host_only(s)), None)
    host = next((i for i, s in enumerate(sources, 1) if is_host_only(s) and
                 any(k[0] == "OpenMP" for k in s["rows"])), None)
    return gpu, host


def compare_section(sources, plots_dir, out_path):
    """GPU (CUDA build) against the host-only OpenMP build, per op, type and size, with each side's naive baseline,
    best native peer and Kokkos Kernels, and one figure with both backends' curves."""
    gi, hi = compare_sources(sources)
    if gi is None or hi is None:
        raise ValueError("--compare needs one CUDA run and one host-only OpenMP run")
    gpu, host = sources[gi - 1], sources[hi - 1]
    gc, hc = gpu["context"], host["context"]
    # Kokkos Kernels' column and the kstream call moving the same bytes: update for add, mult (in place) for fma.
    kk = {"add": ("tiled", "kokkosblas"), "fma": ("tiled_inplace", "kokkosblas_inplace")}
    lines = ["## GPU against host", "",
             f"- GPU [{gi}]: {gc.get('kstream.gpu', '?')}, CUDA runtime {gc.get('kstream.cuda.runtime', '?')}, "
             f"driver {gc.get('kstream.gpu.driver', '?')}; compiler {gc.get('kstream.build.compiler', '?')} (nvcc "
             f"through Kokkos' nvcc_wrapper); Kokkos {gc.get('kstream.kokkos_version', '?')} with "
             f"{gc.get('kstream.backends', '?')}; Kokkos Kernels {gc.get('kstream.kokkos_kernels', '?')}.",
             f"- Host [{hi}]: {hc.get('kstream.cpu_model', '?')}, {hc.get('env.OMP_NUM_THREADS', '?')} OpenMP threads "
             f"(OMP_PROC_BIND={hc.get('env.OMP_PROC_BIND', '?')}, OMP_PLACES={hc.get('env.OMP_PLACES', '?')}); "
             f"{hc.get('kstream.build.kind', '?')}, compiler {hc.get('kstream.build.compiler', '?')} "
             f"{hc.get('kstream.build.host_arch', '')}; Kokkos {hc.get('kstream.kokkos_version', '?')} with "
             f"{hc.get('kstream.backends', '?')}; Kokkos Kernels {hc.get('kstream.kokkos_kernels', '?')}.",
             "", "GB/s per side (medians); each side's ratios are within its own run, GPU / host compares the two "
             "runs (two builds, two processors). Kokkos Kernels: `update` for add, against `kstream::add`; `mult` in "
             "place for fma (c += a * b), against kstream's in-place fma (same bytes).", ""]
    figure = {}
    for op in ("add", "fma"):
        for typ in ("float", "double"):
            g, h = _variants(gpu, "Cuda", typ, op), _variants(host, "OpenMP", typ, op)
            sizes = sorted(set(g.get(KSTREAM, {})) & set(h.get(KSTREAM, {})))
            if not sizes:
                continue
            figure[(op, typ)] = (g, h)
            lines += [f"### {op}, {typ}", "",
                      "| n | GPU tiled | GPU naive | GPU best peer | GPU Kokkos Kernels | kstream / Kokkos Kernels | "
                      "host tiled | host naive | host `omp for` | host Kokkos Kernels | kstream / Kokkos Kernels | "
                      "GPU / host (tiled) |", "|" + "---|" * 12]
            ours, theirs = kk[op]
            for n in sizes:
                gt, ht = g[KSTREAM][n], h[KSTREAM][n]
                peer, peer_gbps = best_peer(gpu["rows"], "Cuda", typ, op, n)
                gk, hk = g.get(theirs, {}).get(n), h.get(theirs, {}).get(n)
                gr, hr = ratio(g.get(ours, {}).get(n), gk), ratio(h.get(ours, {}).get(n), hk)
                lines.append(f"| {n:,} | {fmt(gt)} | {fmt(g.get(BASELINE, {}).get(n))} | "
                             f"{(peer + ' ' + fmt(peer_gbps)) if peer else '–'} | {fmt(gk)} | "
                             f"{fmt(gr, 2) + 'x' if gr else '–'} | {fmt(ht)} | "
                             f"{fmt(h.get(BASELINE, {}).get(n))} | {fmt(h.get('omp_for', {}).get(n))} | {fmt(hk)} | "
                             f"{fmt(hr, 2) + 'x' if hr else '–'} | {fmt(ratio(gt, ht), 1)}x |")
            lines.append("")
    try:
        path = plot_compare(figure, plots_dir)
    except ImportError:
        path = None
    if path:
        lines += [f"![GPU and host bandwidth against n]({os.path.relpath(path, os.path.dirname(os.path.abspath(out_path)))})", ""]
    return lines


def _variants(src, backend, typ, op):
    """{variant: {n: GB/s}} of one source, aligned layout."""
    out = defaultdict(dict)
    for (b, t, o, v, n), (gbps, _, _) in src["rows"].items():
        if (b, t, o) == (backend, typ, op) and "@" not in v:
            out[v][n] = gbps
    return out


def bandwidth_axes(ax, title):
    """GB/s against n on a log2 axis, with a grid and a legend."""
    ax.set_xscale("log", base=2)
    ax.set_title(title)
    ax.set_xlabel("n (elements)")
    ax.set_ylabel("GB/s (1e9 B/s)")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=7)


def save_figure(plt, fig, out_dir, name):
    fig.tight_layout()
    os.makedirs(out_dir, exist_ok=True)
    path = os.path.join(out_dir, name)
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def plot_compare(figure, out_dir):
    """compare.png: add and fma by float and double, GPU curves solid, host curves dashed, GB/s on a log axis."""
    if not figure:
        return None
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, axes = plt.subplots(2, 2, figsize=(13, 8.5), squeeze=False)
    shown = [(KSTREAM, "tiled", 2.5), (BASELINE, "naive", 1.2), ("kokkosblas", "Kokkos Kernels update", 1.2),
             ("kokkosblas_inplace", "Kokkos Kernels mult (in place)", 1.2), ("cub_transform", "cub", 1.2),
             ("omp_for", "omp for", 1.2)]
    for r, op in enumerate(("add", "fma")):
        for c, typ in enumerate(("float", "double")):
            ax = axes[r][c]
            g, h = figure.get((op, typ), ({}, {}))
            for side, rows, style in (("GPU", g, "-"), ("host", h, "--")):
                for variant, label, width in shown:
                    points = rows.get(variant)
                    if not points or (op == "add" and variant == "kokkosblas_inplace") or \
                            (op == "fma" and variant == "kokkosblas"):
                        continue
                    xs = sorted(points)
                    ax.plot(xs, [points[x] for x in xs], linestyle=style, linewidth=width, marker="o",
                            markersize=3, label=f"{side} {label}")
            ax.set_yscale("log")
            bandwidth_axes(ax, f"{op}, {typ}: GPU (solid) and host-only OpenMP (dashed)")
    return save_figure(plt, fig, out_dir, "compare.png")


def accuracy_rows(paths):
    """kstream_accuracy's JSON files: relative errors of float dot products against the exact result."""
    lines = []
    for path in paths:
        data = read_json(path, ("rows", "n"), "kstream_accuracy")
        c = data.get("context", {})
        lines.append(f"`{os.path.basename(path)}`: n = {data['n']:,}, machine {c.get('env.KSTREAM_MACHINE', '?')}, "
                     f"commit {c.get('kstream.commit', '?')}, OMP_NUM_THREADS {c.get('env.OMP_NUM_THREADS', '?')}, "
                     f"command `{c.get('command', '?')}`")
        lines += ["", "| backend | inputs | method | relative error |", "|---|---|---|---|"]
        for r in data["rows"]:
            lines.append(f"| {r['backend']} | {r['inputs']} | {r['method']} | {r['relative_error']:.2e} |")
        lines.append("")
    if not lines:
        return []
    return ["## Accuracy of float dot products", "",
            "`kstream_accuracy`: relative error against a compensated long-double sum, float inputs (uniform in "
            "[-1, 1]; cancelling: +2^20, s, -2^20, s, ... with y = 1; wide: exponents over [-20, 20]). kstream "
            "accumulates float in double; the others in float, as written without it.", ""] + lines


def merge(paths, out):
    """One Google Benchmark JSON from several processes of one build (compare.sh runs one per element type): the
    first file's context, every file's command, all rows."""
    files = [read_json(path, ("benchmarks", "context"), "Google Benchmark") for path in paths]
    context = dict(files[0]["context"])
    context["kstream.command"] = " ; ".join(f["context"].get("kstream.command", "?") for f in files)
    context["kstream.processes"] = f"{len(files)} (one per element type; ratios only within one)"
    with open(out, "w") as f:
        json.dump({"context": context, "benchmarks": [b for data in files for b in data["benchmarks"]]}, f, indent=1)


CHAIN64_VARIANTS = ("eager", "recorded", "cub_eager", "cuda_launches", "cuda_graph", "graph_minimal_team")


def chain64_rows(sources):
    """chain64: microseconds per operation of 64 dependent small calls, eager and recorded, beside the CUDA peers."""
    lines = []
    for i, src in enumerate(sources, 1):
        per_op = {}
        for (backend, typ, op, variant, n), us in src["per_call"].items():
            if op == "chain64" and us is not None:
                per_op[(backend, typ, n, variant)] = us / 64
        for backend, typ, n in sorted({k[:3] for k in per_op}, key=lambda k: (k[0], k[1] != "float", k[1], k[2])):
            cells = [per_op.get((backend, typ, n, v)) for v in CHAIN64_VARIANTS]
            eager, recorded, launches, graph = cells[0], cells[1], cells[3], cells[4]
            lines.append(f"| {backend} | {typ} | {n:,} | " + " | ".join(fmt(c, 2) for c in cells) +
                         f" | {fmt(ratio(recorded, eager), 2)}x | {fmt(ratio(recorded, launches), 2)}x | "
                         f"{fmt(ratio(recorded, graph), 2)}x | [{i}] |")
    if not lines:
        return []
    return ["## Chains of small calls: recorded once, replayed as a graph", "",
            "A chain of 64 dependent operations (32 adds and 32 fmas alternating, `chain64`): microseconds per "
            "operation. `eager`: 64 kstream calls; `recorded`: the same calls recorded once with `kstream::record` "
            "and submitted as one Kokkos Graph; CUDA peers on the same arrays: 64 cub calls, 64 plain kernel "
            "launches, and those launches captured into one CUDA graph; `graph_minimal_team` (tuning runs only): "
            "the chain as a Kokkos Graph of minimal TeamPolicy kernels (one element per thread, no tiles), what "
            "Kokkos' own per-node cost is.", "",
            "| backend | type | n | " + " | ".join(CHAIN64_VARIANTS) + " | recorded / eager | recorded / cuda_launches | "
            "recorded / cuda_graph | source |", "|" + "---|" * (len(CHAIN64_VARIANTS) + 7)] + lines + [""]


def layout_rows(sources):
    """Operand layouts other than aligned (names op/variant/type/backend/layout/n): tiled against naive, the best
    peer on the same pointers and kstream's own aligned speed, all from one source."""
    lines = []
    for i, src in enumerate(sources, 1):
        rows = src["rows"]
        cases = sorted({(b, t, o, v.split("@")[1], n) for (b, t, o, v, n) in rows if v == KSTREAM + "@" + v.split("@")[-1]
                        and "@" in v and not v.split("@")[1].startswith(ND_PREFIX)},
                       key=lambda k: (k[0], k[2], k[1] != "float", k[1], k[4], k[3]))
        for backend, typ, op, layout, n in cases:
            tiled = rows[(backend, typ, op, f"{KSTREAM}@{layout}", n)][0]
            naive = rows.get((backend, typ, op, f"{BASELINE}@{layout}", n), (None,))[0]
            aligned = rows.get((backend, typ, op, KSTREAM, n), (None,))[0]
            peer, peer_gbps = best_peer(rows, backend, typ, op, n, layout)
            lines.append(f"| {backend} | {op} | {typ} | {layout} | {n:,} | {fmt(tiled)} | {fmt(naive)} | "
                         f"{(peer + ' ' + fmt(peer_gbps)) if peer else '–'} | {fmt(ratio(tiled, naive), 2)}x | "
                         f"{fmt(ratio(tiled, peer_gbps), 3) + 'x' if peer else '–'} | {fmt(aligned)} | "
                         f"{fmt(ratio(tiled, aligned), 3)}x | [{i}] |")
    if not lines:
        return []
    return ["## Operand layouts", "",
            "Views at other places than the start of their allocation: `offset1` every view one element in, "
            "`offsets123` x + 1, y + 2, z + 3 and out + 3 (add) or + 1 (fma), `stride2`/`stride3` every 2nd/3rd "
            "element (GB/s on the bytes of the elements touched). Peers run on the same pointers; `tiled aligned` is "
            "kstream's own aligned speed at that n in the same run.", "",
            "| backend | op | type | layout | n | tiled GB/s | naive | best native peer | tiled / naive | "
            "tiled / peer | tiled aligned | tiled / tiled aligned | source |",
            "|---|---|---|---|---|---|---|---|---|---|---|---|---|"] + lines + [""]


ND_PREFIX = "nd-"  # the layout segment of the rows of several dimensions (bench/suite_rank_n.cpp)
ND_PEERS = ("cuda_rows", "omp_collapse")


def nd_cases(src):
    """(backend, type, op, case, n) of every row of several dimensions in one source that kstream ran."""
    return sorted({(b, t, o, v.split("@")[1][len(ND_PREFIX):], n) for (b, t, o, v, n) in src["rows"]
                   if "@" in v and v.split("@")[1].startswith(ND_PREFIX) and v.split("@")[0] in (KSTREAM, "fused_tiled")},
                  key=lambda k: (k[0], k[1] != "float", k[1], k[4], k[2], nd_order(k[3])))


def nd_order(case):
    """Ranks in order, each layout's whole view before interiors, then the other cases."""
    if case.startswith("rank"):
        return (0, int(case[4]), case)
    return (1, case)


def nd_rows(sources):
    """Views of several dimensions: kstream's fraction of its own rank-1 call on the same bytes (flat), against
    MDRange in both iteration orders and the native peer, all from one source."""
    lines = []
    for i, src in enumerate(sources, 1):
        rows = src["rows"]
        get = lambda b, t, o, v, c, n: rows.get((b, t, o, f"{v}@{ND_PREFIX}{c}", n), (None,))[0]
        for backend, typ, op, case, n in nd_cases(src):
            tiled_name, flat_name = ("fused_tiled", "fused_flat") if op == "update_norm" else (KSTREAM, "flat")
            tiled, flat = get(backend, typ, op, tiled_name, case, n), get(backend, typ, op, flat_name, case, n)
            md = [get(backend, typ, op, v, case, n) for v in ("mdrange", "mdrange_matched")]
            best_md = max((x for x in md if x is not None), default=None)
            peer = next(((p, get(backend, typ, op, p, case, n)) for p in ND_PEERS
                         if get(backend, typ, op, p, case, n) is not None), (None, None))
            blas = get(backend, typ, op, "kokkosblas", case, n)
            lines.append(f"| {backend} | {op} | {typ} | {case} | {n:,} | {fmt(tiled)} | {fmt(flat)} | "
                         f"{fmt(ratio(tiled, flat), 3)} | {fmt(md[0])} / {fmt(md[1])} | "
                         f"{fmt(ratio(tiled, best_md), 2)}x | "
                         f"{(peer[0] + ' ' + fmt(peer[1])) if peer[0] else '–'} | "
                         f"{fmt(ratio(tiled, peer[1]), 3) + 'x' if peer[0] else '–'} | "
                         f"{(fmt(blas) + ' | ' + fmt(ratio(tiled, blas), 3) + 'x') if blas else '– | –'} | [{i}] |")
    if not lines:
        return []
    return ["## Views of several dimensions", "",
            "kstream on views of rank 1 to 6 (`rankR-right`/`-left`: whole LayoutRight/LayoutLeft views of one total "
            "size; `interiorR-...`: the interior, 1 .. e-2 in every dimension, of a halo'd field; `-innerK`: an "
            "interior whose rows hold K elements; `padded2-right`: rows of 2^k - 1 elements 2^k apart; "
            "`transposed2`: out = x^T + y; `mixed3`: LayoutRight out and y, LayoutLeft x and z). `flat` is kstream's "
            "rank-1 call on the same number of contiguous elements of the same allocations (the rank-1 speed on the "
            "same bytes); `tiled / flat` is the fraction of it reached. MDRange runs Kokkos' default iteration and the "
            "iteration matched to the output's layout; `tiled / MDRange` is against the faster. The peer is a plain "
            "CUDA kernel over rows (`cuda_rows`) or an `omp parallel for collapse(2)` loop nest (`omp_collapse`). Kokkos "
            "Kernels: its multivector update (`KokkosBlas::update`, out = x + y) on the same rank-2 views, where the "
            "suite was built with it (`kokkosblas`).", "",
            "| backend | op | type | case | n | tiled GB/s | flat GB/s | tiled / flat | MDRange default / matched | "
            "tiled / MDRange | peer | tiled / peer | Kokkos Kernels GB/s | tiled / Kokkos Kernels | source |",
            "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"] + lines + [""]


def plot_nd(sources, out_dir):
    """tiled / flat and the faster MDRange / flat for each case of add at its largest n in each source."""
    bars = defaultdict(dict)  # (backend, type) -> {case: (kstream fraction, MDRange fraction)}
    for src in sources:
        rows = src["rows"]
        cases = [k for k in nd_cases(src) if k[2] == "add"]
        largest = {}
        for backend, typ, op, case, n in cases:
            largest[(backend, typ, case)] = max(n, largest.get((backend, typ, case), 0))
        for backend, typ, op, case, n in cases:
            if n != largest[(backend, typ, case)]:
                continue
            get = lambda v: rows.get((backend, typ, op, f"{v}@{ND_PREFIX}{case}", n), (None,))[0]
            flat = get("flat")
            md = max((x for x in (get("mdrange"), get("mdrange_matched")) if x is not None), default=None)
            if flat:
                bars[(backend, typ)][case] = (ratio(get(KSTREAM), flat), ratio(md, flat))
    if not bars:
        return None
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    keys = sorted(bars, key=lambda k: (k[0] != "Cuda", k[0], k[1] != "float", k[1]))
    fig, axes = plt.subplots(len(keys), 1, figsize=(12, 3.2 * len(keys)), squeeze=False)
    for ax, key in zip((a[0] for a in axes), keys):
        cases = sorted(bars[key], key=nd_order)
        xs = range(len(cases))
        ax.bar([x - 0.2 for x in xs], [bars[key][c][0] or 0 for c in cases], width=0.4, label="kstream tiled")
        ax.bar([x + 0.2 for x in xs], [bars[key][c][1] or 0 for c in cases], width=0.4, label="MDRange (faster order)")
        ax.axhline(1.0, color="black", linewidth=0.8)
        ax.set_xticks(list(xs))
        ax.set_xticklabels(cases, rotation=45, ha="right", fontsize=7)
        ax.set_ylabel("fraction of rank-1 speed")
        ax.set_title(f"add, {key[1]}, {key[0]}: fraction of kstream's rank-1 call on the same bytes")
        ax.grid(True, axis="y", alpha=0.3)
        ax.legend(fontsize=7)
    return save_figure(plt, fig, out_dir, "rank_n.png")


def scaling_rows(sources):
    """kstream_mpi_bench: aggregate GB/s on 1..k ranks of one job, the speedup over 1 rank and its efficiency."""
    lines = []
    for i, src in enumerate(sources, 1):
        sc = src.get("scaling", {})
        for backend, typ, op, mode, n in sorted({k[:5] for k in sc}, key=lambda k: (k[0], k[3] != "weak", k[2], k[1], k[4])):
            counts = sorted(r for (b, t, o, m, nn, r) in sc if (b, t, o, m, nn) == (backend, typ, op, mode, n))
            one = sc.get((backend, typ, op, mode, n, 1))
            for ranks in counts:
                gbps = sc[(backend, typ, op, mode, n, ranks)]
                speedup = ratio(gbps, one)
                lines.append(f"| {backend} | {mode} | {op} | {typ} | {n:,} | {ranks} | {fmt(gbps)} | "
                             f"{fmt(speedup, 3) + 'x' if speedup else '– (does not fit)' if ranks > 1 else '–'} | "
                             f"{fmt(100 * speedup / ranks, 1) + ' %' if speedup else '–'} | [{i}] |")
    if not lines:
        return []
    return ["## Several GPUs (MPI)", "",
            "`kstream_mpi_bench`: every rank owns a contiguous slice and runs the same engine on its own GPU; one job "
            "measures each rank count. Weak: n elements per rank; strong: n in all. GB/s: all ranks' bytes over the "
            "slowest rank's time (barrier, batch, fence, maximum over ranks); medians over repetitions. Speedup: over "
            "1 rank in the same job; efficiency: speedup / ranks.", "",
            "| backend | mode | op | type | n | ranks | GB/s | speedup over 1 rank | efficiency | source |",
            "|---|---|---|---|---|---|---|---|---|---|"] + lines + [""]


def plot_scaling(sources, out_dir):
    """GB/s against rank count, one line per (mode, op, n), from kstream_mpi_bench results."""
    points = defaultdict(dict)
    for src in sources:
        for (backend, typ, op, mode, n, ranks), gbps in src.get("scaling", {}).items():
            points[(backend, typ, mode, op, n)][ranks] = gbps
    if not points:
        return None
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    modes = sorted({k[2] for k in points}, key=lambda m: m != "weak")
    fig, axes = plt.subplots(1, len(modes), figsize=(6.5 * len(modes), 4.2), squeeze=False)
    for c, mode in enumerate(modes):
        ax = axes[0][c]
        for (backend, typ, m, op, n), by_ranks in sorted(points.items()):
            if m != mode:
                continue
            xs = sorted(by_ranks)
            ax.plot(xs, [by_ranks[x] for x in xs], marker="o", label=f"{op} {typ} n={n:,} ({backend})")
        ax.set_title(f"{mode} scaling" + (" (n per rank)" if mode == "weak" else " (n in all)"))
        ax.set_xlabel("ranks (GPUs)")
        ax.set_ylabel("aggregate GB/s (1e9 B/s)")
        ax.set_ylim(bottom=0)
        ax.set_xticks(sorted({r for k in points for r in points[k]}))
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=7)
    fig.tight_layout()
    os.makedirs(out_dir, exist_ok=True)
    path = os.path.join(out_dir, "scaling.png")
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def copy_rate(sources, backend, typ, n, source_index):
    rows = sources[source_index - 1]["rows"]
    rates = [rows[(backend, typ, "copy", v, n)][0] for v in COPY_VARIANTS if (backend, typ, "copy", v, n) in rows]
    return max(rates) if rates else None


def table(sources, backend, typ, op, variants, peaks):
    sizes = sorted({n for v in variants.values() for n in v})
    names = sorted(variants, key=lambda v: (v != KSTREAM and not v.startswith(KSTREAM), v != BASELINE, v))
    header = ["n"] + [f"{v} GB/s" for v in names]
    if KSTREAM in variants and BASELINE in variants:
        header.append("tiled / naive")
    peers = [v for v in names if v not in (KSTREAM, BASELINE) and not v.startswith(KSTREAM + "_")]
    for p in peers:
        header.append(f"tiled / {p}")
    if op != "copy":
        header.append("tiled % of copy")
    if backend in peaks:
        header.append(f"tiled % of {peaks[backend]:.0f} GB/s peak")
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for n in sizes:
        cells = [f"{n:,}"]
        for v in names:
            cells.append(fmt(variants[v].get(n, (None,))[0]))
        tiled = variants.get(KSTREAM, {}).get(n)
        if KSTREAM in variants and BASELINE in variants:
            naive = variants[BASELINE].get(n)
            same_run = tiled and naive and tiled[1] == naive[1]
            cells.append(fmt(ratio(tiled[0], naive[0]), 2) + "x" if same_run else "–")
        for p in peers:
            peer = variants[p].get(n)
            same_run = tiled and peer and tiled[1] == peer[1]
            cells.append(fmt(ratio(tiled[0], peer[0]), 3) + "x" if same_run else
                         ("(other run)" if tiled and peer else "–"))
        if op != "copy":
            c = copy_rate(sources, backend, typ, n, tiled[1]) if tiled else None
            cells.append(fmt(100 * ratio(tiled[0], c), 1) if tiled and c else "–")
        if backend in peaks:
            cells.append(fmt(100 * tiled[0] / peaks[backend], 1) if tiled else "–")
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


MID_OPS = ("add", "fma", "triad", "dot")
MID_RANGE = (1 << 12, (1 << 24) + 7)
# Rows that are not peers of the out-of-place call at the same n: kstream's own forms, in-place pairs, unfused forms.
NOT_PEERS = ("tiled", "tiled_inplace", "kokkosblas_inplace", "unfused_naive", "fused_naive")


def floor_probe(per_call, backend, typ, variant):
    """Per-call time of an empty launch-floor row at LAUNCH_FLOOR_N: this type's, else float's (older files)."""
    found = per_call.get((backend, typ, "empty", variant, LAUNCH_FLOOR_N))
    return found if found is not None else per_call.get((backend, "float", "empty", variant, LAUNCH_FLOOR_N))


def mid_size_rows(src):
    """(backend, type, op, n) -> facts of kstream tiled against the best peer of one GPU source at 2^12 .. 2^24 + 7:
    per-call times, and the launch floor's difference (Kokkos launch minus plain launch, back to back). A dot's
    Kokkos launches are those its `launches` counter names: one, a Kokkos parallel_reduce; two, a team kernel
    and the team that folds its partial results. Sources without the counter ran the engine before, whose dot
    was a team kernel and a Kokkos parallel_reduce over the partials."""
    rows, per_call = src["rows"], src["per_call"]
    out = {}
    for (backend, typ, op, variant, n) in rows:
        if variant != KSTREAM or op not in MID_OPS or not MID_RANGE[0] <= n <= MID_RANGE[1]:
            continue
        floor = {v: floor_probe(per_call, backend, typ, v) for v in ("kokkos_team", "kokkos_reduce", "cuda_kernel")}
        if floor["cuda_kernel"] is None or floor["kokkos_team"] is None:
            continue  # no plain launch to compare with: not a GPU source with floor rows
        team = floor["kokkos_team"] - floor["cuda_kernel"]
        delta = team
        if op == "dot":
            if floor["kokkos_reduce"] is None:
                continue
            reduce = floor["kokkos_reduce"] - floor["cuda_kernel"]
            delta = {1: reduce, 2: 2 * team}.get(src.get("launches", {}).get((backend, typ, op, KSTREAM, n)),
                                                 team + reduce)
        peers = {v: per_call[k] for k in rows if k[:3] == (backend, typ, op) and k[4] == n
                 for v in [k[3]] if v not in NOT_PEERS and "@" not in v and not v.startswith(KSTREAM + "_")
                 and per_call.get(k)}
        tiled = per_call.get((backend, typ, op, KSTREAM, n))
        if not peers or not tiled:
            continue
        peer = min(peers, key=peers.get)
        spread = [src.get("cv", {}).get((backend, typ, op, v, n)) for v in (KSTREAM, peer)]
        out[(backend, typ, op, n)] = {"tiled_us": tiled, "peer": peer, "peer_us": peers[peer], "delta_us": delta,
                                      "tiled_gbps": rows[(backend, typ, op, KSTREAM, n)][0],
                                      "peer_gbps": rows[(backend, typ, op, peer, n)][0],
                                      "spread": max(spread) if None not in spread else None}
    return out


def mid_sizes(sources, plots_dir, out_path):
    """The mid sizes on the GPU: kstream tiled against the best peer of the same run, and the bound the launch floor
    sets (the best peer's time plus the measured extra of Kokkos' launch over a plain one)."""
    lines = []
    for i, src in enumerate(sources, 1):
        facts = mid_size_rows(src)
        if not facts:
            continue
        lines += [f"## Mid sizes on the GPU: kstream against the best peer and the launch floor (source [{i}])", "",
                  "Per-call times (us) of back-to-back calls. Best peer: the fastest other row of the same op and n "
                  "in the run (plain CUDA kernel, cub, cuBLAS, Kokkos Kernels, Kokkos' std algorithms, naive "
                  "Kokkos). Floor extra: empty Kokkos TeamPolicy kernel minus empty CUDA kernel at "
                  f"n = {LAUNCH_FLOOR_N:,}; dot: each Kokkos launch of the call's (its `launches` counter), "
                  "one parallel_reduce (empty Kokkos parallel_reduce minus empty CUDA kernel) or a team kernel and "
                  "a team that folds, and without the counter the engine before, a team kernel and a "
                  "parallel_reduce. Bound: best peer's time plus the floor extra; kstream meets the bar at 0.97x "
                  "the best peer, or within 3 % of the bound (bound / tiled >= 0.97). A/A: the larger coefficient "
                  "of variation of the repetitions of tiled and of the best peer in the run; a shortfall to 0.97 "
                  "of the bound that lies inside it is a miss within the A/A.", "",
                  "| op | type | n | tiled GB/s | best peer | tiled / best peer | floor extra (us) | "
                  "bound / tiled | A/A % | bar |", "|---|---|---|---|---|---|---|---|---|---|"]
        for (backend, typ, op, n), f in sorted(facts.items(), key=lambda kv: (kv[0][0], MID_OPS.index(kv[0][2]),
                                                                           kv[0][1] != "float", kv[0][3])):
            against = f["peer_us"] / f["tiled_us"]
            bound = (f["peer_us"] + max(f["delta_us"], 0.0)) / f["tiled_us"]
            spread = f["spread"]
            bar = "0.97x met" if against >= 0.97 else "floor" if bound >= 0.97 else \
                "within the A/A" if spread is not None and 0.97 - bound <= spread else "**not met**"
            lines.append(f"| {op} | {typ} | {n:,} | {fmt(f['tiled_gbps'])} | {f['peer']} {fmt(f['peer_gbps'])} | "
                         f"{against:.3f}x | {f['delta_us']:.2f} | {bound:.3f} | "
                         f"{fmt(100 * spread, 1) if spread is not None else '–'} | {bar} |")
        lines.append("")
        add_figure(lines, lambda: plot_mid(facts, plots_dir, i), out_path,
                   "kstream tiled over the best peer against n, with the launch-floor bound")
    return lines


# kstream's own rows in a before-and-after key: the engine's forms, not the peers measured beside them (flat:
# kstream's rank-1 call beside a view of several dimensions).
KSTREAM_FORMS = (KSTREAM, "fused_tiled", "separate_tiled", "flat", "fused_flat")


def before_after(sources):
    """Keys `<change>_before_after` of a source: an engine change measured old against new in one lease, each row
    {name, old_us_per_call, new_us_per_call, old/new_us_per_call_by_round}. kstream's rows at powers of two (and
    views of several dimensions, `nd-*`, at their size), with the speed-up and the spread between the rounds of each
    side (the A/A)."""
    lines = []
    for i, src in enumerate(sources, 1):
        for key, block in sorted(src.get("before_after", {}).items()):
            rows = []
            for r in block["rows"]:
                parts = r.get("name", "").split("/")
                n = r.get("n")
                old, new = r.get("old_us_per_call"), r.get("new_us_per_call")
                if len(parts) < 6 or parts[1] not in KSTREAM_FORMS or not n or not old or not new:
                    continue
                if n & (n - 1) and not parts[4].startswith("nd-"):
                    continue
                spread = [max(v) / min(v) - 1 for v in (r.get("old_us_per_call_by_round"),
                                                        r.get("new_us_per_call_by_round")) if v and min(v) > 0]
                rows.append(f"| {parts[0]} | {parts[1]} | {parts[2]} | {parts[4]} | {n:,} | {old:.2f} | {new:.2f} | "
                            f"{old / new:.3f}x | {fmt(100 * max(spread), 1) if spread else '–'} |")
            if not rows:
                continue
            lines += [f"## Before and after: `{key}` (source [{i}])", "", block.get("description", ""), "",
                      "Per-call times (us), medians of each side; speed-up: old time over new; A/A: the larger "
                      "spread between the rounds of one side (%).", "",
                      "| op | form | type | views | n | old (us) | new (us) | speed-up | A/A % |",
                      "|---|---|---|---|---|---|---|---|---|"] + rows + [""]
    return lines


def plot_mid(facts, out_dir, index):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    types = sorted({t for (_, t, _, _) in facts}, key=lambda t: t != "float")
    fig, axes = plt.subplots(1, len(types), figsize=(6.5 * len(types), 4.2), squeeze=False)
    for c, typ in enumerate(types):
        ax = axes[0][c]
        for op in MID_OPS:
            pts = sorted((n, f) for (_, t, o, n), f in facts.items() if t == typ and o == op and n & (n - 1) == 0)
            if not pts:
                continue
            xs = [n for n, _ in pts]
            line, = ax.plot(xs, [f["peer_us"] / f["tiled_us"] for _, f in pts], marker="o", markersize=3, label=op)
            ax.plot(xs, [f["peer_us"] / (f["peer_us"] + max(f["delta_us"], 0.0)) for _, f in pts], linestyle="--",
                    color=line.get_color(), linewidth=1, label=f"{op}: floor-adjusted bound")
        ax.axhline(0.97, color="gray", linestyle=":", linewidth=1)
        ax.set_ylim(0.5, 1.3)  # where the bar is; rows far above it (a naive peer only) leave the frame
        ax.set_xscale("log", base=2)
        ax.set_xlabel("n (elements)")
        ax.set_ylabel("kstream tiled / best peer (speed)")
        ax.set_title(f"{typ}: tiled over the best peer of the run")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=7)
    return save_figure(plt, fig, out_dir, f"mid_sizes_{index}.png")


def launch_floor(sources):
    """Per-call time at the smallest sizes, where launching, not moving bytes, is the cost."""
    lines = []
    for i, src in enumerate(sources, 1):
        rows = {k: v for k, v in src["rows"].items() if k[4] == LAUNCH_FLOOR_N and k[2] in ("add", "fma", "empty")}
        empty = {k[3]: v for k, v in rows.items() if k[2] == "empty"}
        if not empty:
            continue
        floor = empty.get("kokkos_team")
        native = empty.get("cuda_kernel")
        lines += [f"## Launch floor at n = {LAUNCH_FLOOR_N:,} (source [{i}])", "",
                  "Per-call time of back-to-back calls (events around a batch; `_fenced`: a fence after each call, "
                  "the round trip a caller that waits sees). The empty calls: `kokkos_range` a Kokkos RangePolicy "
                  "over the n indices, `kokkos_team` a TeamPolicy of the grid kstream's add launches there, "
                  "`kokkos_reduce` a parallel_reduce into a device view, `cuda_kernel` a plain CUDA launch of that "
                  "grid, `cuda_graph` a CUDA graph of it.", "",
                  "| op | type | variant | us per call | / empty Kokkos kernel | / empty CUDA kernel |",
                  "|---|---|---|---|---|---|"]
        for (backend, typ, op, variant, n), (gbps, real_time, unit) in sorted(rows.items()):
            us = src["per_call"].get((backend, typ, op, variant, n))
            if us is None:
                continue
            f = fmt(ratio(us, floor_probe(src["per_call"], backend, typ, "kokkos_team")), 2)
            c = fmt(ratio(us, floor_probe(src["per_call"], backend, typ, "cuda_kernel")), 2)
            lines.append(f"| {op} | {typ} | {variant} | {us:.2f} | {f}x | {c}x |")
        lines.append("")
    return lines


def plot(groups_, out_dir, typ):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    backends = sorted({b for (b, t, _) in groups_ if t == typ})
    ops = [op for op in ("add", "fma", "chain") if any((b, typ, op) in groups_ for b in backends)]
    if not backends or not ops:
        return None
    fig, axes = plt.subplots(len(ops), len(backends), figsize=(6.5 * len(backends), 4 * len(ops)), squeeze=False)
    for r, op in enumerate(ops):
        for c, backend in enumerate(backends):
            ax = axes[r][c]
            variants = groups_.get((backend, typ, op), {})
            copy = groups_.get((backend, typ, "copy"), {})
            for name, points in sorted(variants.items()):
                if name.startswith(KSTREAM + "_"):
                    continue  # tuning grid: tables only
                xs = sorted(points)
                style = {"linewidth": 2.5} if name in (KSTREAM, "fused_tiled") else {"linewidth": 1.2}
                ax.plot(xs, [points[x][0] for x in xs], marker="o", markersize=3, label=name, **style)
            for name, points in sorted(copy.items()):
                xs = sorted(points)
                ax.plot(xs, [points[x][0] for x in xs], linestyle=":", color="gray", label=f"copy ({name})")
            bandwidth_axes(ax, f"{op}, {typ}, {backend}")
    return save_figure(plt, fig, out_dir, f"bandwidth_{typ}.png")


def add_figure(out, plot, out_path, alt):
    """Appends the figure plot() writes (None: none; no matplotlib: none) to the report's lines; True if one was."""
    try:
        path = plot()
    except ImportError:
        return False
    if not path:
        return False
    out += [f"![{alt}]({os.path.relpath(path, os.path.dirname(os.path.abspath(out_path)))})", ""]
    return True


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("results", nargs="+", help="Google Benchmark JSON files")
    ap.add_argument("--out", required=True, help="markdown file to write")
    ap.add_argument("--plots", help="folder for PNG plots (default: next to --out, in plots/)")
    ap.add_argument("--peak", action="append", default=[], help="BACKEND=GB/s, e.g. Cuda=4800 (spec bandwidth)")
    ap.add_argument("--title", default="kstream benchmark report")
    ap.add_argument("--compare", action="store_true",
                    help="open with the GPU-against-host section (one CUDA run and one host-only OpenMP run)")
    ap.add_argument("--accuracy", action="append", default=[], help="kstream_accuracy JSON file(s) to tabulate")
    ap.add_argument("--merge", action="store_true",
                    help="write the inputs (processes of one build) as one JSON file to --out, no report")
    args = ap.parse_args(argv)
    if args.merge:
        try:
            merge(args.results, args.out)
        except (OSError, ValueError) as e:
            ap.error(str(e))
        print(f"wrote {args.out}")
        return 0

    peaks = {}
    for p in args.peak:
        backend, _, value = p.partition("=")
        try:
            peaks[backend] = float(value)
        except ValueError:
            ap.error(f"--peak takes BACKEND=GB/s, got '{p}'")
    sources = []
    for path in args.results:
        try:
            sources.append(load(path))
        except (OSError, ValueError) as e:
            ap.error(str(e))
    g = groups(sources)
    if not g and not any(src["scaling"] or nd_cases(src) for src in sources):
        ap.error("no benchmark rows named op/variant/type/backend/n in the inputs")

    plots_dir = args.plots or os.path.join(os.path.dirname(os.path.abspath(args.out)), "plots")
    out = [f"# {args.title}", "", "Generated by `scripts/report.py` from:", ""]
    out += [describe_source(s, i) for i, s in enumerate(sources, 1)]
    out += ["", "GB/s counts the bytes each operation must move (copy 2, add 3, fma 4, chain 4 arrays of n "
            "elements; 1 GB = 1e9 B). Ratios are formed only between results of one run (one file); "
            "'(other run)' marks pairs from different files. Values are medians over repetitions where present.", ""]
    if args.compare:
        try:
            out += compare_section(sources, plots_dir, args.out)
        except ValueError as e:
            ap.error(str(e))
    top = headline(sources)
    if top:
        out += ["## Headline: the largest n of each run", ""] + top + [""]
    plotted = False
    for typ in ("float", "double") if not args.compare else ():  # --compare: its own figure says it
        try:
            path = plot(g, plots_dir, typ)
            plotted = plotted or bool(path)
        except ImportError:
            if typ == "float":
                print("note: this python3 has no matplotlib, so the report has tables only; for plots run it with a "
                      "python3 that has it (pip install matplotlib, or Debian's python3-matplotlib)", file=sys.stderr)
                out += ["(No plots: the python3 that wrote this report has no matplotlib.)", ""]
            path = None
        if path:
            rel = os.path.relpath(path, os.path.dirname(os.path.abspath(args.out)))
            out += [f"![bandwidth vs size, {typ}]({rel})", ""]
    fusion_rows, fusion_sweep = [], []
    for (backend, typ, op), variants in sorted(g.items()):
        for fop, fused, unfused, predicted in FUSION:
            if op != fop or fused not in variants or unfused not in variants:
                continue
            rows = []
            for n in sorted(variants[fused]):
                if n < FUSION_MIN_N:
                    continue
                f, u = variants[fused][n], variants[unfused].get(n)
                if u and f[1] == u[1]:
                    rows.append(f"| {backend} | {typ} | {op}: {fused} vs {unfused} | {n:,} | "
                                f"{f[0] / u[0]:.2f}x | {predicted:.2f}x |")
            if rows:
                fusion_rows.append(rows[-1])  # the largest n; the whole sweep goes into the collapsed table
                fusion_sweep += rows
    if fusion_rows:
        out += ["## What fusion buys", "",
                "Speedup of the fused kernel over the same computation as separate kernels (the intermediate "
                "results going through memory), measured in one run, beside the speedup predicted from bytes "
                "moved (unfused fma: a multiply kernel, 3 arrays, then an add kernel, 3 arrays = 6 vs 4; chain "
                "out = 3x + 0.5y + z as 4 one-operation kernels = 10 arrays vs 4; update_norm, r = r - x and "
                "||r||^2, as an update then a norm = 4 arrays vs 3), for n >= 2^20. naive vs "
                "unfused/separate naive isolates fusion (same kernel style); tiled vs them adds the tiled "
                "engine's own gain.", "",
                "| backend | type | comparison | n | measured | predicted |", "|---|---|---|---|---|---|"]
        out += fusion_rows + ["", "<details><summary>Every size from 2^20</summary>", "",
                              "| backend | type | comparison | n | measured | predicted |", "|---|---|---|---|---|---|"]
        out += fusion_sweep + ["", "</details>", ""]
    out += kokkos_kernels_rows(sources)
    try:
        out += accuracy_rows(args.accuracy)
    except (OSError, ValueError) as e:
        ap.error(str(e))
    out += layout_rows(sources)
    nd = nd_rows(sources)
    if nd:
        out += nd
        plotted = add_figure(out, lambda: plot_nd(sources, plots_dir), args.out,
                             "fraction of the rank-1 speed per case") or plotted
    scaling = scaling_rows(sources)
    if scaling:
        out += scaling
        plotted = add_figure(out, lambda: plot_scaling(sources, plots_dir), args.out,
                             "aggregate GB/s against ranks") or plotted
    out += chain64_rows(sources)
    out += launch_floor(sources)
    out += mid_sizes(sources, plots_dir, args.out)
    out += before_after(sources)
    for (backend, typ, op) in sorted(g, key=lambda k: (k[0], k[1] != "float", k[1], k[2])):
        if op in ("empty", "chain64"):
            continue  # in the launch-floor and chain sections
        out += [f"## {op}, {typ}, {backend}", "", table(sources, backend, typ, op, g[(backend, typ, op)], peaks), ""]
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    with open(args.out, "w") as f:
        f.write("\n".join(out))
    print(f"wrote {args.out}" + (f" and plots in {plots_dir}" if plotted else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
