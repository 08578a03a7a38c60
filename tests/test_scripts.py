#!/usr/bin/env python3
"""Tests of the Python scripts: report.py on small fixture result files (tests/fixtures/report_*.json), and
triton_compare.py's one-line refusal on a machine without torch, triton or a GPU."""
import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
REPORT = os.path.join(HERE, "..", "scripts", "report.py")
TRITON_COMPARE = os.path.join(HERE, "..", "scripts", "triton_compare.py")
FIXTURES = os.path.join(HERE, "fixtures")


def run(*args):
    return subprocess.run([sys.executable, REPORT, *args], capture_output=True, text=True)


class ReportTest(unittest.TestCase):
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

    def row(self, text, heading, n):
        section = text.split(f"## {heading}")[1].split("## ")[0]
        return next(line for line in section.splitlines() if line.startswith(f"| {n:,} |"))

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
        import json
        rows = {"eager": 256.0, "recorded": 83.2, "cub_eager": 243.2, "cuda_launches": 211.2, "cuda_graph": 76.8}
        data = {"context": {"date": "2026-11-30", "host_name": "fixture-gpu", "kstream.backends": "Cuda"},
                "benchmarks": [{"name": f"chain64/{v}/float/Cuda/aligned/4096", "run_name":
                                f"chain64/{v}/float/Cuda/aligned/4096", "run_type": "iteration", "GB/s": 1.0,
                                "real_time": 1.0, "time_unit": "us", "us_per_call": us} for v, us in rows.items()]}
        path = os.path.join(self.tmp.name, "chain.json")
        with open(path, "w") as f:
            json.dump(data, f)
        result = run(path, "--out", self.out)
        self.assertEqual(result.returncode, 0, result.stderr)
        with open(self.out) as f:
            text = f.read()
        row = next(line for line in text.split("## Chains of small calls")[1].splitlines() if "| 4,096 |" in line)
        self.assertIn("| 4.00 | 1.30 |", row)   # us per operation: 256 / 64, 83.2 / 64
        self.assertIn("0.33x", row)             # recorded / eager
        self.assertIn("0.39x", row)             # recorded / cuda_launches = 1.30 / 3.30
        self.assertIn("1.08x", row)             # recorded / cuda_graph = 1.30 / 1.20

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
