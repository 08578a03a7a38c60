#!/usr/bin/env python3
"""Tests of the scripts: report.py on small fixture result files (tests/fixtures/report_*.json),
triton_compare.py's one-line refusal on a machine without torch, triton or a GPU, and compare.sh's arguments and
the checks it makes before building anything (stand-in nvidia-smi and Kokkos installs), and the device compile
check's refusals (stand-in toolchain root and nvcc)."""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
REPORT = os.path.join(HERE, "..", "scripts", "report.py")
TRITON_COMPARE = os.path.join(HERE, "..", "scripts", "triton_compare.py")
COMPARE = os.path.join(HERE, "..", "scripts", "compare.sh")
DEVICE_CHECK = os.path.join(HERE, "..", "scripts", "check-device-build.sh")
TOOLCHAIN = os.path.join(HERE, "..", "scripts", "toolchain.sh")
FIXTURES = os.path.join(HERE, "fixtures")


def run(*args):
    return subprocess.run([sys.executable, REPORT, *args], capture_output=True, text=True)


class ReportCase(unittest.TestCase):
    """Runs report.py on fixtures into a temporary folder."""

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.out = os.path.join(self.tmp.name, "report.md")

    def tearDown(self):
        self.tmp.cleanup()

    def report(self, *files, extra=()):
        result = run(*[os.path.join(FIXTURES, f) for f in files], "--out", self.out, *extra)
        self.assertEqual(result.returncode, 0, result.stderr)
        with open(self.out) as f:
            return f.read(), result

    def report_data(self, data):
        """report.py on a Google Benchmark JSON made here."""
        import json
        path = os.path.join(self.tmp.name, "made.json")
        with open(path, "w") as f:
            json.dump(data, f)
        result = run(path, "--out", self.out)
        self.assertEqual(result.returncode, 0, result.stderr)
        with open(self.out) as f:
            return f.read()

    def row(self, text, heading, n):
        section = text.split(f"## {heading}")[1].split("## ")[0]
        return next(line for line in section.splitlines() if line.startswith(f"| {n:,} |"))


class ReportTest(ReportCase):
    def test_ratios_come_from_one_run_and_median_aggregates_win(self):
        text, _ = self.report("report_cuda.json", "report_triton.json", extra=("--peak", "Cuda=4800"))
        row = self.row(text, "add, float, Cuda", 268435456)
        self.assertIn("4,400", row)         # the median aggregate, not the 1.0 iteration row
        self.assertIn("1.76x", row)         # tiled / naive = 4400 / 2500
        self.assertIn("1.000x", row)        # tiled / cub_transform
        self.assertIn("(other run)", row)   # torch lives in another file: no ratio formed
        self.assertIn("104.8", row)         # % of copy, 4400 / 4200
        self.assertIn("91.7", row)          # % of the 4800 GB/s peak

    def test_headline_table_comes_first(self):
        text, _ = self.report("report_cuda.json", "report_openmp.json")
        self.assertLess(text.index("## Headline"), text.index("## add, float, Cuda"))
        headline = text.split("## Headline")[1].split("## ")[0]
        row = next(line for line in headline.splitlines() if line.startswith("| Cuda | add | float |"))
        self.assertIn("cub_transform 4,400", row)
        self.assertIn("1.76x", row)

    def test_layout_table_compares_on_the_same_pointers_and_with_aligned(self):
        text, _ = self.report("report_layouts.json")
        section = text.split("## Operand layouts")[1].split("## ")[0]
        row = next(line for line in section.splitlines() if "| offsets123 |" in line)
        self.assertIn("1.72x", row)                # tiled / naive = 4300 / 2500
        self.assertIn("cub_transform 4,380", row)
        self.assertIn("0.982x", row)               # tiled / cub on the same pointers
        self.assertIn("0.977x", row)               # tiled / tiled aligned = 4300 / 4400
        stride = next(line for line in section.splitlines() if "| stride2 |" in line)
        self.assertIn("1.06x", stride)             # 1700 / 1600
        self.assertNotIn("@", text.split("## Operand layouts")[0])  # layouts stay out of the aligned tables

    def test_chain64_table_per_operation(self):
        rows = {"eager": 256.0, "recorded": 83.2, "cub_eager": 243.2, "cuda_launches": 211.2, "cuda_graph": 76.8}
        text = self.report_data({
            "context": {"date": "2026-11-30", "host_name": "fixture-gpu", "kstream.backends": "Cuda"},
            "benchmarks": [{"name": f"chain64/{v}/float/Cuda/aligned/4096", "run_name":
                            f"chain64/{v}/float/Cuda/aligned/4096", "run_type": "iteration", "GB/s": 1.0,
                            "real_time": 1.0, "time_unit": "us", "us_per_call": us} for v, us in rows.items()]})
        row = next(line for line in text.split("## Chains of small calls")[1].splitlines() if "| 4,096 |" in line)
        self.assertIn("| 4.00 | 1.30 |", row)   # us per operation: 256 / 64, 83.2 / 64
        self.assertIn("0.33x", row)             # recorded / eager
        self.assertIn("0.39x", row)             # recorded / cuda_launches = 1.30 / 3.30
        self.assertIn("1.08x", row)             # recorded / cuda_graph = 1.30 / 1.20

    def test_rank_n_table_against_rank_1_mdrange_and_the_row_peer(self):
        gbps = {"tiled": 4200.0, "flat": 4400.0, "mdrange": 1000.0, "mdrange_matched": 1400.0, "cuda_rows": 2100.0,
                "kokkosblas": 1680.0}
        text = self.report_data({
            "context": {"date": "2026-12-02", "host_name": "fixture-gpu", "kstream.backends": "Cuda"},
            "benchmarks": [{"name": f"add/{v}/float/Cuda/nd-interior3-left/132651000", "run_name":
                            f"add/{v}/float/Cuda/nd-interior3-left/132651000", "run_type": "iteration",
                            "GB/s": g, "real_time": 1.0, "time_unit": "us"} for v, g in gbps.items()]})
        row = next(line for line in text.split("## Views of several dimensions")[1].splitlines()
                   if "| interior3-left |" in line)
        self.assertIn("| 0.955 |", row)           # tiled / flat = 4200 / 4400
        self.assertIn("| 1,000 / 1,400 |", row)   # MDRange in both orders
        self.assertIn("| 3.00x |", row)           # against the faster MDRange
        self.assertIn("cuda_rows 2,100 | 2.000x", row)
        self.assertIn("| 1,680 | 2.500x |", row)  # Kokkos Kernels' multivector update
        self.assertNotIn("nd-", text.split("## Views of several dimensions")[0])  # out of the other tables

    def test_scaling_table_per_rank_count(self):
        text, result = self.report("report_mpi.json")
        section = text.split("## Several GPUs (MPI)")[1].split("## ")[0]
        rows = [line for line in section.splitlines() if line.startswith("| Cuda |")]
        one = next(r for r in rows if "| weak | add |" in r and "| 1 |" in r)
        two = next(r for r in rows if "| weak | add |" in r and "| 2 |" in r)
        self.assertIn("| 4,400 |", one)      # median of the 1-rank samples, not mixed with the 2-rank ones
        self.assertIn("| 8,760 |", two)
        self.assertIn("1.991x", two)         # 8760 / 4400
        self.assertIn("99.5 %", two)         # efficiency: speedup / 2
        strong = next(r for r in rows if "| strong |" in r)
        self.assertIn("does not fit", strong)  # no 1-rank row to compare with
        self.assertFalse(any("| fma |" in r for r in rows))  # a failed row is a warning, not a number
        self.assertIn("validation failed on 2 ranks", result.stderr)

    def test_tables_without_matplotlib(self):
        with tempfile.TemporaryDirectory() as fake:  # a matplotlib that cannot be imported
            os.makedirs(os.path.join(fake, "matplotlib"))
            with open(os.path.join(fake, "matplotlib", "__init__.py"), "w") as f:
                f.write("raise ImportError('no matplotlib here')\n")
            env = dict(os.environ, PYTHONPATH=fake)
            result = subprocess.run([sys.executable, REPORT, os.path.join(FIXTURES, "report_cuda.json"), "--out",
                                     self.out], capture_output=True, text=True, env=env)
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertIn("pip install matplotlib", result.stderr)
        with open(self.out) as f:
            text = f.read()
        self.assertIn("## add, float, Cuda", text)
        self.assertIn("No plots", text)
        self.assertFalse(os.path.exists(os.path.join(self.tmp.name, "plots")))

    def test_sources_plots_and_both_backends(self):
        text, _ = self.report("report_cuda.json", "report_openmp.json")
        self.assertIn("Fixture GPU", text)
        self.assertIn("Fixture CPU", text)
        self.assertIn("commit abc1234", text)
        self.assertIn("## fma, double, OpenMP", text)
        self.assertIn("2.00x", self.row(text, "fma, double, OpenMP", 4096))
        for typ in ("float", "double"):
            png = os.path.join(self.tmp.name, "plots", f"bandwidth_{typ}.png")
            with open(png, "rb") as f:
                self.assertEqual(f.read(8), b"\x89PNG\r\n\x1a\n")
            self.assertIn(f"plots/bandwidth_{typ}.png", text)

    def test_fusion_speedup_beside_the_prediction(self):
        text, _ = self.report("report_openmp.json")
        row = next(line for line in text.splitlines() if "chain: fused_tiled vs separate_naive" in line)
        self.assertIn("| 2.50x | 2.50x |", row)  # 80 / 32 measured, 10 / 4 predicted

    def test_launch_floor_compares_per_call_times(self):
        text, _ = self.report("report_cuda.json")
        section = text.split("## Launch floor at n = 4,096")[1].split("## ")[0]
        row = next(line for line in section.splitlines() if "| add | float | tiled |" in line)
        self.assertIn("| 4.20 | 1.05x | 1.31x |", row)  # 4.2 us against empty Kokkos 4.0 and empty CUDA 3.2

    def test_mid_sizes_against_the_best_peer_and_the_floor_bound(self):
        def row(op, variant, n, us, typ="double", launches=None):
            name = f"{op}/{variant}/{typ}/Cuda/aligned/{n}"
            moved = {"add": 3, "dot": 2, "empty": 0}[op] * 8 * n
            made = {"name": name, "run_name": name, "run_type": "iteration", "GB/s": moved / us / 1e3,
                    "us_per_call": us, "real_time": us, "time_unit": "us"}
            return made if launches is None else dict(made, launches=launches)
        text = self.report_data({
            "context": {"date": "2026-12-02", "host_name": "fixture-gpu", "kstream.backends": "Cuda"},
            "benchmarks": [row("empty", "kokkos_team", 4096, 4.0), row("empty", "cuda_kernel", 4096, 3.5),
                           row("empty", "kokkos_reduce", 4096, 5.0),
                           row("add", "tiled", 65536, 4.0), row("add", "cuda_kernel", 65536, 3.6),
                           row("add", "naive", 65536, 4.4), row("add", "tiled", 1 << 20, 10.0),
                           row("add", "cub_transform", 1 << 20, 9.0), row("dot", "tiled", 65536, 9.0),
                           row("dot", "kokkosblas", 65536, 5.5), row("dot", "tiled_inplace", 65536, 1.0),
                           row("dot", "tiled", 1 << 20, 9.0, launches=1), row("dot", "cub_reduce", 1 << 20, 7.0),
                           row("dot", "tiled", 1 << 22, 20.0, launches=2), row("dot", "cub_reduce", 1 << 22, 18.5),
                           # repetitions: their spread (cv) is the A/A a shortfall to the bound is held against
                           row("add", "tiled", 1 << 21, 19.2), row("add", "tiled", 1 << 21, 20.0),
                           row("add", "tiled", 1 << 21, 20.8), row("add", "cuda_kernel", 1 << 21, 18.5),
                           row("add", "cuda_kernel", 1 << 21, 18.5), row("add", "tiled", 1 << 22, 40.0),
                           row("add", "tiled", 1 << 22, 40.4), row("add", "cuda_kernel", 1 << 22, 37.0),
                           row("add", "cuda_kernel", 1 << 22, 37.0)]})
        section = text.split("## Mid sizes on the GPU")[1].split("\n## ")[0]
        lines = section.splitlines()
        add = next(line for line in lines if line.startswith("| add | double | 65,536 |"))
        self.assertIn("cuda_kernel", add)          # the fastest other row, not naive
        self.assertIn("| 0.900x | 0.50 | 1.025 | – | floor |", add)  # 3.6 / 4.0; (3.6 + 0.5) / 4.0
        big = next(line for line in lines if line.startswith("| add | double | 1,048,576 |"))
        self.assertIn("| 0.900x | 0.50 | 0.950 | – | **not met** |", big)  # (9.0 + 0.5) / 10.0 < 0.97
        dot = next(line for line in lines if line.startswith("| dot | double | 65,536 |"))
        self.assertIn("kokkosblas", dot)           # in-place forms are not peers
        self.assertIn("| 2.00 | 0.833 | – | **not met** |", dot)  # two Kokkos launches: 0.5 + 1.5; (5.5 + 2.0) / 9.0
        # With the counter: one Kokkos parallel_reduce (1.5), or a team kernel and a folding team (0.5 + 0.5).
        one = next(line for line in lines if line.startswith("| dot | double | 1,048,576 |"))
        self.assertIn("| 0.778x | 1.50 | 0.944 | – | **not met** |", one)  # (7.0 + 1.5) / 9.0
        two = next(line for line in lines if line.startswith("| dot | double | 4,194,304 |"))
        self.assertIn("| 0.925x | 1.00 | 0.975 | – | floor |", two)  # (18.5 + 1.0) / 20.0
        # 0.95 of the bound, 0.02 short of 0.97: inside tiled's cv of 4 % (stdev 0.8 of a mean of 20.0)
        inside = next(line for line in lines if line.startswith("| add | double | 2,097,152 |"))
        self.assertIn("| 0.925x | 0.50 | 0.950 | 4.0 | within the A/A |", inside)
        # (37.0 + 0.5) / 40.0 = 0.938 (the median of two: the faster), 0.032 short: outside a cv of 0.7 %
        outside = next(line for line in lines if line.startswith("| add | double | 4,194,304 |"))
        self.assertIn("| 0.938 | 0.7 | **not met** |", outside)

    def test_before_and_after_keys_give_kstreams_rows_with_their_spread(self):
        def change(name, n, old, new):
            return {"name": name, "n": n, "old_us_per_call": old, "new_us_per_call": new,
                    "old_us_per_call_by_round": [old, old * 1.02], "new_us_per_call_by_round": [new, new]}
        text = self.report_data({
            "context": {"date": "2026-12-03", "host_name": "fixture-gpu", "kstream.backends": "Cuda"},
            "benchmarks": [{"name": "dot/tiled/float/Cuda/aligned/4096", "run_type": "iteration", "GB/s": 1.0,
                            "us_per_call": 4.0, "real_time": 4.0, "time_unit": "us"}],
            "one_launch_before_after": {"description": "fixture change", "rows": [
                change("dot/tiled/float/Cuda/aligned/4096", 4096, 8.0, 4.0),
                change("dot/cub_reduce/float/Cuda/aligned/4096", 4096, 9.0, 9.0),
                change("dot/tiled/float/Cuda/aligned/65543", 65543, 8.0, 4.0),
                change("dot/tiled/float/Cuda/nd-interior3-left/132651000", 132651000, 6.0, 4.0)]}})
        section = text.split("## Before and after: `one_launch_before_after`")[1].split("\n## ")[0]
        self.assertIn("fixture change", section)
        self.assertIn("| dot | tiled | float | aligned | 4,096 | 8.00 | 4.00 | 2.000x | 2.0 |", section)
        self.assertIn("| dot | tiled | float | nd-interior3-left | 132,651,000 | 6.00 | 4.00 | 1.500x |", section)
        self.assertNotIn("cub_reduce", section)  # a peer, not the engine's row
        self.assertNotIn("65,543", section)      # odd sizes stay in the file

    def test_failed_benchmarks_are_reported_not_tabled(self):
        text, result = self.report("report_cuda.json")
        self.assertIn("validation failed", result.stderr)
        self.assertNotIn("broken", text)

    def test_bad_input_is_a_clear_error(self):
        bad = os.path.join(self.tmp.name, "bad.json")
        with open(bad, "w") as f:
            f.write('{"not": "a benchmark file"}')
        result = run(bad, "--out", self.out)
        self.assertNotEqual(result.returncode, 0)
        self.assertIn("not a Google Benchmark JSON file", result.stderr)
        result = run(os.path.join(FIXTURES, "report_cuda.json"), "--out", self.out, "--peak", "Cuda")
        self.assertNotEqual(result.returncode, 0)
        self.assertIn("--peak takes BACKEND=GB/s", result.stderr)


class CompareReportTest(ReportCase):
    """report.py --compare (GPU against host), --merge, and the Kokkos Kernels table."""

    def test_gpu_against_host_comes_first_with_kokkos_kernels_and_a_figure(self):
        text, _ = self.report("report_compare_cuda.json", "report_compare_host.json", extra=("--compare",))
        self.assertLess(text.index("## GPU against host"), text.index("## Headline"))
        section = text.split("## GPU against host")[1].split("\n## ")[0]
        self.assertIn("Fixture GPU", section)
        self.assertIn("Fixture CPU, 16 OpenMP threads", section)
        self.assertIn("Kokkos Kernels 4.6.99", section)
        add = section.split("### add, float")[1].split("###")[0]
        row = next(line for line in add.splitlines() if line.startswith("| 268,435,456 |"))
        # GPU tiled 4400, naive 2500, cub 4400, update 2200 (2.00x); host tiled 110, naive 100, omp 88,
        # update 100 (1.10x); GPU / host 40x.
        self.assertEqual(row, "| 268,435,456 | 4,400 | 2,500 | cub_transform 4,400 | 2,200 | 2.00x | 110 | 100 | 88 "
                              "| 100 | 1.10x | 40.0x |")
        fma = section.split("### fma, double")[1]
        row = next(line for line in fma.splitlines() if line.startswith("| 268,435,456 |"))
        self.assertIn("| 3,300 | 1.33x |", row)  # mult in place 3300 against kstream's in-place fma 4400
        self.assertIn("| 100 | 1.20x |", row)    # host: 120 / 100
        with open(os.path.join(self.tmp.name, "plots", "compare.png"), "rb") as f:
            self.assertEqual(f.read(8), b"\x89PNG\r\n\x1a\n")

    def test_kokkos_kernels_pairs_move_the_same_bytes(self):
        text, _ = self.report("report_compare_host.json")
        section = text.split("## Kokkos Kernels' BLAS-1")[1].split("\n## ")[0]
        rows = [line for line in section.splitlines() if line.startswith("| OpenMP | float | 268,435,456 |")]
        self.assertEqual(len(rows), 3)
        self.assertIn("`KokkosBlas::axpby(1, x, 1, y)` | 105 | 105 | 1.00x |", rows[1])
        self.assertIn("`KokkosBlas::mult(1, c, 1, a, b)` | 120 | 100 | 1.20x |", rows[2])

    def test_compare_needs_a_gpu_run_and_a_host_run(self):
        result = run(os.path.join(FIXTURES, "report_compare_host.json"), "--compare", "--out", self.out)
        self.assertEqual(result.returncode, 2)
        self.assertIn("--compare needs one CUDA run and one host-only OpenMP run", result.stderr)

    def test_accuracy_table(self):
        text, _ = self.report("report_openmp.json", extra=("--accuracy", os.path.join(FIXTURES, "report_accuracy.json")))
        section = text.split("## Accuracy of float dot products")[1].split("\n## ")[0]
        self.assertIn("n = 1,024, machine fixture, commit abc1234", section)
        self.assertIn("| OpenMP | cancelling | kstream::dot | 0.00e+00 |", section)
        self.assertIn("| OpenMP | cancelling | Kokkos parallel_reduce (float) | 5.01e-01 |", section)
        result = run(os.path.join(FIXTURES, "report_openmp.json"), "--out", self.out, "--accuracy",
                     os.path.join(FIXTURES, "report_openmp.json"))
        self.assertEqual(result.returncode, 2)
        self.assertIn("not a kstream_accuracy JSON file", result.stderr)

    def test_merge_keeps_every_row_and_every_command(self):
        merged = os.path.join(self.tmp.name, "merged.json")
        result = run("--merge", os.path.join(FIXTURES, "report_compare_cuda.json"),
                     os.path.join(FIXTURES, "report_openmp.json"), "--out", merged)
        self.assertEqual(result.returncode, 0, result.stderr)
        with open(merged) as f:
            data = json.load(f)
        with open(os.path.join(FIXTURES, "report_compare_cuda.json")) as f:
            first = json.load(f)
        with open(os.path.join(FIXTURES, "report_openmp.json")) as f:
            second = json.load(f)
        self.assertEqual(len(data["benchmarks"]), len(first["benchmarks"]) + len(second["benchmarks"]))
        self.assertEqual(data["context"]["kstream.gpu"], "Fixture GPU")
        self.assertIn(first["context"]["kstream.command"], data["context"]["kstream.command"])
        self.assertTrue(data["context"]["kstream.processes"].startswith("2 "))


class CompareScriptTest(unittest.TestCase):
    """compare.sh stops before building anything when the GPU, the CUDA Kokkos or the host Kokkos is missing or
    wrong, naming what is missing and the line that fixes it; --check passes with everything in place."""

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.smi = self.script("nvidia-smi", 'echo "NVIDIA H200, 9.0"')

    def tearDown(self):
        self.tmp.cleanup()

    def script(self, name, body):
        path = os.path.join(self.tmp.name, name)
        with open(path, "w") as f:
            f.write("#!/bin/sh\n" + body + "\n")
        os.chmod(path, 0o755)
        return path

    def kokkos(self, name, devices, arch):
        """A stand-in Kokkos install: the two settings compare.sh reads, and nvcc_wrapper for a CUDA one."""
        prefix = os.path.join(self.tmp.name, name)
        os.makedirs(os.path.join(prefix, "lib", "cmake", "Kokkos"))
        os.makedirs(os.path.join(prefix, "bin"))
        with open(os.path.join(prefix, "lib", "cmake", "Kokkos", "KokkosConfigCommon.cmake"), "w") as f:
            f.write(f"set(Kokkos_DEVICES {devices})\nset(Kokkos_CXX_COMPILER_ID GNU)\nset(Kokkos_ARCH {arch})\n")
        if "CUDA" in devices:
            self.script(os.path.join(name, "bin", "nvcc_wrapper"), "exit 0")
        return prefix

    def compare(self, *args, **env):
        environ = {k: v for k, v in os.environ.items()
                   if k not in ("Kokkos_ROOT", "KokkosKernels_ROOT", "KSTREAM_HOST_KOKKOS_ROOT")}
        environ.update({"KSTREAM_NVIDIA_SMI": self.smi, **env})
        return subprocess.run(["bash", COMPARE, *args], capture_output=True, text=True, env=environ)

    def assert_stops(self, result, *phrases):
        self.assertEqual(result.returncode, 2, result.stderr)
        for phrase in phrases:
            self.assertIn(phrase, result.stderr)
        self.assertNotIn("[1/4]", result.stderr)  # nothing was built

    def test_unknown_argument(self):
        self.assert_stops(self.compare("--fast"), "unknown argument '--fast'")

    def test_no_gpu(self):
        self.assert_stops(self.compare(KSTREAM_NVIDIA_SMI=os.path.join(self.tmp.name, "absent")),
                          "no NVIDIA GPU found", "scripts/bench.sh")

    def test_no_cuda_kokkos_names_the_architecture_of_this_gpu(self):
        self.assert_stops(self.compare(), "set Kokkos_ROOT", "NVIDIA H200", "-DKokkos_ARCH_HOPPER90=ON",
                          "-DKokkos_ENABLE_CUDA=ON")

    def test_kokkos_without_cuda(self):
        host = self.kokkos("host", "OPENMP;SERIAL", "NATIVE")
        self.assert_stops(self.compare(Kokkos_ROOT=host), "has no CUDA backend (devices: OPENMP;SERIAL)",
                          "-DKokkos_ARCH_HOPPER90=ON")

    def test_kokkos_for_another_architecture(self):
        cuda = self.kokkos("ampere", "OPENMP;SERIAL;CUDA", "AMPERE80")
        self.assert_stops(self.compare(Kokkos_ROOT=cuda), "was built for AMPERE80",
                          "compute capability 9.0: rebuild it with -DKokkos_ARCH_HOPPER90=ON")

    def test_not_a_kokkos_install(self):
        self.assert_stops(self.compare(Kokkos_ROOT=self.tmp.name), "holds no KokkosConfigCommon.cmake")

    def test_missing_or_wrong_host_kokkos(self):
        cuda = self.kokkos("cuda", "OPENMP;SERIAL;CUDA", "HOPPER90")
        missing = os.path.join(self.tmp.name, "no-such-kokkos")
        self.assert_stops(self.compare(Kokkos_ROOT=cuda, KSTREAM_HOST_KOKKOS_ROOT=missing),
                          f"KSTREAM_HOST_KOKKOS_ROOT={missing} holds no", "-DKokkos_ENABLE_OPENMP=ON")
        self.assert_stops(self.compare(Kokkos_ROOT=cuda, KSTREAM_HOST_KOKKOS_ROOT=cuda),
                          "needs a Kokkos with OpenMP and without CUDA")

    def test_check_passes_and_writes_nothing(self):
        cuda = self.kokkos("cuda", "OPENMP;SERIAL;CUDA", "HOPPER90")
        host = self.kokkos("host", "OPENMP;SERIAL", "NATIVE")
        results = os.path.join(HERE, "..", "bench", "results")
        before = sorted(os.walk(results))
        result = self.compare("--check", "--quick", Kokkos_ROOT=cuda, KSTREAM_HOST_KOKKOS_ROOT=host,
                              KSTREAM_MACHINE="check-machine")
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertIn("GPU: NVIDIA H200 (compute capability 9.0, Kokkos_ARCH_HOPPER90)", result.stderr)
        self.assertIn("checks passed", result.stderr)
        self.assertEqual(sorted(os.walk(results)), before)


class DeviceCheckScriptTest(unittest.TestCase):
    """check-device-build.sh stops with a message that names the fix: no nvcc, Kokkos headers not laid out as
    5.2.2's, no hipcc (a root it cannot install into), an unknown backend."""

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.root = os.path.join(self.tmp.name, "root")
        with open(TOOLCHAIN) as f:
            version = re.search(r"^KSTREAM_ROOT_VERSION=(\d+)", f.read(), re.M).group(1)
        # What toolchain.sh takes for a made root (its marker, cmake, both Kokkos packages), with Kokkos headers
        # whose configuration has no OpenMP line: another layout than 5.2.2's.
        files = {f".kstream-root-{version}": "", "usr/bin/cmake": "#!/bin/sh\n",
                 "usr/lib/x86_64-linux-gnu/cmake/Kokkos/KokkosConfig.cmake": "",
                 "opt/kokkos-serial/usr/lib/x86_64-linux-gnu/cmake/Kokkos/KokkosConfig.cmake": "",
                 "opt/kokkos-serial/usr/lib/x86_64-linux-gnu/cmake/KokkosKernels/KokkosKernelsConfig.cmake": "",
                 "usr/include/kokkos/KokkosCore_config.h": "#define KOKKOS_ENABLE_THREADS\n",
                 "usr/include/kokkos/Cuda/Kokkos_Cuda.hpp": "", "usr/include/kokkos/HIP/Kokkos_HIP.hpp": "",
                 "bin/nvcc": "#!/bin/sh\nexit 0\n"}
        for name, text in files.items():
            path = os.path.join(self.root if not name.startswith("bin/") else self.tmp.name, name)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w") as f:
                f.write(text)
            os.chmod(path, 0o755)
        self.system_path = "/usr/sbin:/usr/bin:/sbin:/bin"

    def tearDown(self):
        self.tmp.cleanup()

    def check(self, *args, path=None):
        environ = {k: v for k, v in os.environ.items() if k not in ("Kokkos_ROOT", "Kokkos_DIR", "CMAKE_PREFIX_PATH")}
        environ.update({"PATH": path or self.system_path, "KSTREAM_ROOT_DIR": self.root,
                        "KSTREAM_DEVICE_CHECK_DIR": os.path.join(self.tmp.name, "device-check")})
        return subprocess.run(["bash", DEVICE_CHECK, *args], capture_output=True, text=True, env=environ)

    def assert_stops(self, result, *phrases):
        self.assertNotEqual(result.returncode, 0, result.stderr)
        for phrase in phrases:
            self.assertIn(phrase, result.stderr)
        self.assertNotIn("translation units", result.stdout + result.stderr)  # nothing was compiled

    def test_unknown_backend(self):
        self.assert_stops(self.check("sycl"), "unknown backend 'sycl' (cuda or hip)")

    def test_no_nvcc(self):
        self.assertIsNone(shutil.which("nvcc", path=self.system_path))
        self.assert_stops(self.check("cuda"), "no nvcc on the PATH", "install the CUDA toolkit",
                          "scripts/check-device-build.sh hip")

    def test_kokkos_headers_of_another_layout(self):
        result = self.check("cuda", path=os.path.join(self.tmp.name, "bin") + ":" + self.system_path)
        self.assert_stops(result, "KokkosCore_config.h has no line '#define KOKKOS_ENABLE_OPENMP'",
                          "update configure_kokkos in scripts/check-device-build.sh")

    def test_no_hipcc_when_the_root_cannot_install_it(self):
        self.assert_stops(self.check("hip"), "no hipcc: installing hipcc", "reaches Debian's registry")


class TritonCompareTest(unittest.TestCase):
    def test_without_a_gpu_stack_it_says_so_in_one_line(self):
        # No GPU is visible with CUDA_VISIBLE_DEVICES empty, so this holds on a GPU machine too; without torch
        # or triton the refusal names the missing package instead.
        env = dict(os.environ, CUDA_VISIBLE_DEVICES="")
        result = subprocess.run([sys.executable, TRITON_COMPARE, "--check-only"], capture_output=True, text=True,
                                env=env)
        self.assertEqual(result.returncode, 2)
        lines = result.stderr.strip().splitlines()
        self.assertEqual(len(lines), 1, result.stderr)
        self.assertTrue(lines[0].startswith("triton_compare: "), lines[0])
        self.assertNotIn("Traceback", result.stderr)


if __name__ == "__main__":
    unittest.main(verbosity=2)
