#!/usr/bin/env python3
"""The course's Triton vector_add (and a Triton FMA and dot) with their unit checks, timed against PyTorch.

    python3 scripts/triton_compare.py --out bench/results/triton.json [--max-n 268435463] [--check-only]
                                      [--dtypes float32,float64,bfloat16,float16] [--sizes 268435456,...]
    python3 scripts/triton_compare.py --accuracy DIR --exact accuracy.json --out accuracy_torch.json
    python3 scripts/triton_compare.py --along --out along_torch.json [--dtypes float32,float64]
    python3 scripts/triton_compare.py --rows --out rows_torch.json [--dtypes float32,bfloat16]

1. Checks: triton_add == x + y, triton_fma ~= torch.addcmul(c, a, b) and triton_dot ~= a double dot at tail sizes
   (n not a multiple of BLOCK_SIZE, n < BLOCK_SIZE, n = 0).
2. Timing over the C++ suite's sizes (2^10 .. 2^28 by 4, plus 2^28 + 7; or --sizes), for each of --dtypes
   (default float32; float64, bfloat16 and float16 are named double, bf16 and half, as in kstream_bench): CUDA
   events around batches of back-to-back calls, median of 7 batches. Peers: x + y, torch.add(out=),
   torch.addcmul(out=), eager a * b + c, torch.dot (cuBLAS), torch.linalg.vecdot, (x * y).sum(), and out.copy_(x)
   as the copy reference.
3. Writes Google Benchmark-style JSON (names op/variant/<type>/Cuda/n, counter GB/s on the element size of the
   dtype) for scripts/report.py.
--accuracy: float dot products of the inputs `kstream_accuracy --inputs=DIR` wrote (torch.dot, (x * y).sum(),
triton_dot), relative errors against the exact results in that run's JSON (--exact), in its row format.
--along: PyTorch's reductions along dimensions on the cases of bench/suite_along.cpp (2^24 elements): torch.sum(dim),
torch.linalg.vecdot(dim) and torch.linalg.vector_norm(dim), named as the suite's rows (along_sum/torch_sum/...), each
checked against a float64 sum first. A LayoutLeft multivector is the transpose of a contiguous k x n tensor.
--rows: the row operations of bench/suite_rows.cpp (M x N, M = 4096 fewer where M x N passes 2^29): torch.softmax,
the naive torch graph (max, subtract, exp, sum, divide), the Triton tutorial's fused softmax (a program per row, the
row in registers; N <= 16384), torch.nn.functional.rms_norm and layer_norm, each checked against float64 first.
Without a GPU or without triton it prints one line saying so and exits with status 2.
"""
import argparse
import datetime
import json
import platform
import socket
import statistics
import sys


def fail(message):
    print(f"triton_compare: {message}", file=sys.stderr)
    sys.exit(2)


try:
    import torch
except ImportError:
    fail("PyTorch is not installed; this script needs torch and triton on a CUDA GPU")
if not torch.cuda.is_available():
    fail("no CUDA GPU visible to PyTorch; run this on the GPU machine")
try:
    import triton
    import triton.language as tl
except ImportError:
    fail("Triton is not installed; this script needs triton on a CUDA GPU")


@triton.jit
def add_kernel(x_ptr, y_ptr, output_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    # The course's kernel: each program instance handles one block of BLOCK_SIZE elements.
    pid = tl.program_id(axis=0)
    block_start = pid * BLOCK_SIZE
    offsets = block_start + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements  # the tail: the last block may run past n
    x = tl.load(x_ptr + offsets, mask=mask)
    y = tl.load(y_ptr + offsets, mask=mask)
    tl.store(output_ptr + offsets, x + y, mask=mask)


@triton.jit
def fma_kernel(a_ptr, b_ptr, c_ptr, output_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    a = tl.load(a_ptr + offsets, mask=mask)
    b = tl.load(b_ptr + offsets, mask=mask)
    c = tl.load(c_ptr + offsets, mask=mask)
    tl.store(output_ptr + offsets, tl.fma(a, b, c), mask=mask)


@triton.jit
def dot_kernel(x_ptr, y_ptr, partial_ptr, n_elements, BLOCK_SIZE: tl.constexpr, BLOCKS: tl.constexpr,
               ACC: tl.constexpr):
    # Each program sums x * y over BLOCKS blocks (in ACC: float32, as Triton code is usually written, float64 for
    # double inputs) into its partial; torch sums the partials (no atomics: the same result on every run).
    pid = tl.program_id(axis=0)
    acc = tl.zeros([BLOCK_SIZE], dtype=ACC)
    for b in range(BLOCKS):
        offsets = (pid * BLOCKS + b) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
        mask = offsets < n_elements
        x = tl.load(x_ptr + offsets, mask=mask, other=0.0).to(ACC)
        y = tl.load(y_ptr + offsets, mask=mask, other=0.0).to(ACC)
        acc += x * y
    tl.store(partial_ptr + pid, tl.sum(acc, axis=0))


BLOCK_SIZE = 1024
DOT_BLOCKS = 16


@triton.jit
def softmax_kernel(out_ptr, in_ptr, in_row_stride, out_row_stride, n_cols, BLOCK_SIZE: tl.constexpr):
    """The Triton tutorial's fused softmax: one program per row, the row in registers."""
    row = tl.program_id(0)
    offsets = tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_cols
    x = tl.load(in_ptr + row * in_row_stride + offsets, mask=mask, other=-float("inf")).to(tl.float32)
    numerator = tl.exp(x - tl.max(x, axis=0))
    y = numerator / tl.sum(numerator, axis=0)
    tl.store(out_ptr + row * out_row_stride + offsets, y.to(out_ptr.dtype.element_ty), mask=mask)


def triton_softmax(x, out):
    block = triton.next_power_of_2(x.shape[1])
    warps = 16 if block >= 4096 else 8 if block >= 2048 else 4
    softmax_kernel[(x.shape[0],)](out, x, x.stride(0), out.stride(0), x.shape[1], BLOCK_SIZE=block, num_warps=warps)


def triton_add(x, y, out):
    n = out.numel()
    if n:
        add_kernel[(triton.cdiv(n, BLOCK_SIZE),)](x, y, out, n, BLOCK_SIZE=BLOCK_SIZE)
    return out


def triton_fma(a, b, c, out):
    n = out.numel()
    if n:
        fma_kernel[(triton.cdiv(n, BLOCK_SIZE),)](a, b, c, out, n, BLOCK_SIZE=BLOCK_SIZE)
    return out


def triton_dot(x, y, partials):
    """x . y through dot_kernel; partials from dot_partials (its dtype is the accumulator's)."""
    n = x.numel()
    programs = triton.cdiv(n, BLOCK_SIZE * DOT_BLOCKS)
    if n:
        acc = tl.float64 if partials.dtype == torch.float64 else tl.float32
        dot_kernel[(programs,)](x, y, partials, n, BLOCK_SIZE=BLOCK_SIZE, BLOCKS=DOT_BLOCKS, ACC=acc)
    return partials[:programs].sum()


def dot_partials(n, dtype=torch.float32):
    """Room for triton_dot's per-program sums: float64 for double inputs, float32 otherwise."""
    acc = torch.float64 if dtype == torch.float64 else torch.float32
    return torch.empty(max(1, triton.cdiv(n, BLOCK_SIZE * DOT_BLOCKS)), device="cuda", dtype=acc)


def check():
    """Unit checks at the sizes that exercise the mask. Returns the number of sizes checked."""
    sizes = [0, 1, 7, BLOCK_SIZE - 1, BLOCK_SIZE, BLOCK_SIZE + 1, 98432, 1000003]
    gen = torch.Generator(device="cuda").manual_seed(0)
    for n in sizes:
        a, b, c = (torch.randn(n, device="cuda", generator=gen) for _ in range(3))
        out = torch.full((n,), float("nan"), device="cuda")
        triton_add(a, b, out)
        if not torch.equal(out, a + b):
            fail(f"check failed: triton add differs from x + y at n={n}")
        out.fill_(float("nan"))
        triton_fma(a, b, c, out)
        # addcmul may or may not fuse; the fused result is within one rounding of it.
        torch.testing.assert_close(out, torch.addcmul(c, a, b), rtol=2e-7, atol=1e-6,
                                   msg=lambda m: f"check failed: triton fma vs torch.addcmul at n={n}: {m}")
        exact = torch.dot(a.double(), b.double())
        got = triton_dot(a, b, dot_partials(n)).double()
        if abs(float(got - exact)) > 1e-5 * max(1.0, float(torch.dot(a.abs().double(), b.abs().double()))):
            fail(f"check failed: triton dot {float(got)} vs {float(exact)} at n={n}")
    return len(sizes)


def time_per_call(fn, n):
    """Median over 7 batches of the per-call time, each batch >= ~20 ms of back-to-back calls (CUDA events)."""
    fn()
    torch.cuda.synchronize()
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    calls = 1
    while True:
        start.record()
        for _ in range(calls):
            fn()
        end.record()
        end.synchronize()
        if start.elapsed_time(end) >= 20.0 or calls >= 1 << 16:
            break
        calls *= 2
    per_call = []
    for _ in range(7):
        start.record()
        for _ in range(calls):
            fn()
        end.record()
        end.synchronize()
        per_call.append(start.elapsed_time(end) * 1e-3 / calls)
    return statistics.median(per_call), calls


def timed_row(name, fn, n, nbytes):
    """fn timed (time_per_call) as a Google Benchmark-style row, GB/s on `nbytes`; printed as it goes."""
    seconds, calls = time_per_call(fn, n)
    gbps = nbytes / seconds / 1e9
    print(f"{name:70s} {seconds * 1e6:10.2f} us  {gbps:8.1f} GB/s", flush=True)
    return {"name": name, "run_name": name, "run_type": "iteration", "iterations": calls, "real_time": seconds * 1e6,
            "time_unit": "us", "GB/s": gbps, "us_per_call": seconds * 1e6, "n": n}


def sizes(max_n):
    result = [1 << k for k in range(10, 29, 2) if (1 << k) <= max_n]
    if result and result[-1] + 7 <= max_n:
        result.append(result[-1] + 7)
    return result


def main():
    ap = argparse.ArgumentParser(description="Triton vector_add/FMA vs PyTorch, as kstream benchmark JSON")
    ap.add_argument("--out", help="JSON file to write (required unless --check-only)")
    ap.add_argument("--max-n", type=int, default=(1 << 28) + 7)
    ap.add_argument("--check-only", action="store_true")
    ap.add_argument("--dtypes", default="float32", help="comma-separated: float32, bfloat16, float16")
    ap.add_argument("--sizes", help="comma-separated element counts instead of the suite's sizes")
    ap.add_argument("--accuracy", metavar="DIR", help="the inputs kstream_accuracy --inputs=DIR wrote")
    ap.add_argument("--exact", metavar="JSON", help="that kstream_accuracy run's JSON (the exact results)")
    ap.add_argument("--along", action="store_true", help="torch's reductions along dimensions (suite_along's cases)")
    ap.add_argument("--rows", action="store_true", help="torch's and Triton's softmax and norms (suite_rows' cases)")
    args = ap.parse_args()
    if args.accuracy:
        if not args.exact or not args.out:
            ap.error("--accuracy needs --exact and --out")
        return accuracy(args.accuracy, args.exact, args.out)
    names = {"float32": "float", "float64": "double", "bfloat16": "bf16", "float16": "half"}
    dtypes = args.dtypes.split(",")
    for d in dtypes:
        if d not in names:
            ap.error(f"--dtypes takes float32, float64, bfloat16 or float16, got '{d}'")
    try:
        size_list = [int(v) for v in args.sizes.split(",")] if args.sizes else sizes(args.max_n)
    except ValueError:
        ap.error(f"--sizes takes whole numbers separated by commas, got '{args.sizes}'")
    if not args.check_only and not args.out:
        ap.error("--out is required unless --check-only")
    if args.along:
        return along(dtypes, names, args.out)
    if args.rows:
        return row_operations(dtypes, names, args.out)

    checked = check()
    print(f"checks passed at {checked} sizes (add exact vs x + y, fma vs torch.addcmul, dot vs a double dot)")
    if args.check_only:
        return 0

    rows = []
    for dtype_name, n in ((d, n) for d in dtypes for n in size_list):
        dtype = getattr(torch, dtype_name)
        element = torch.tensor([], dtype=dtype).element_size()
        x, y, z = (torch.rand(n, device="cuda", dtype=dtype) for _ in range(3))
        out = torch.empty(n, device="cuda", dtype=dtype)
        partials = dot_partials(n, dtype)
        variants = [
            ("copy", "torch_copy", lambda: out.copy_(x), 2),
            ("add", "triton_vector_add", lambda: triton_add(x, y, out), 3),
            ("add", "torch_x_plus_y", lambda: x + y, 3),
            ("add", "torch_add_out", lambda: torch.add(x, y, out=out), 3),
            ("fma", "triton_fma", lambda: triton_fma(x, y, z, out), 4),
            ("fma", "torch_addcmul_out", lambda: torch.addcmul(z, x, y, out=out), 4),
            ("fma", "torch_a_mul_b_plus_c", lambda: x * y + z, 4),
            ("dot", "torch_dot", lambda: torch.dot(x, y), 2),
            ("dot", "torch_vecdot", lambda: torch.linalg.vecdot(x, y), 2),
            ("dot", "torch_mul_sum", lambda: (x * y).sum(), 2),
            ("dot", "triton_dot", lambda: triton_dot(x, y, partials), 2),
        ]
        for op, name, fn, arrays in variants:
            rows.append(timed_row(f"{op}/{name}/{names[dtype_name]}/Cuda/{n}", fn, n, arrays * element * n))
        del x, y, z, out, partials
        torch.cuda.empty_cache()

    context = {**environment(), "checks": f"passed at {checked} sizes",
               "timing": "CUDA events, median of 7 batches of back-to-back calls, each batch >= ~20 ms"}
    with open(args.out, "w") as f:
        json.dump({"context": context, "benchmarks": rows}, f, indent=1)
    print(f"wrote {args.out}")
    return 0


def along_cases(bits=24):
    """suite_along.cpp's cases_of(bits): (name, make(dtype) -> tensor of that layout, reduced dims, columns?)."""
    total = 1 << bits
    cases = []
    for right in (False, True):
        for k in (1, 2, 4, 8, 16, 64, 1024):
            n = total // k
            shape = (n, k) if right else (k, n)
            make = (lambda s, r: lambda dtype: (lambda t: t if r else t.t())(
                torch.rand(s, device="cuda", dtype=dtype)))(shape, right)
            name = f"mv-{'right' if right else 'left'}-k{k}"
            cases.append((name + "-columns", make, (0,), True))
            cases.append((name + "-rows", make, (1,), False))
    side = 1
    while (side * 2) ** 3 <= total:
        side *= 2
    for axis in range(3):
        cases.append((f"field3-axis{axis}", lambda dtype: torch.rand((side,) * 3, device="cuda", dtype=dtype),
                      (axis,), False))
    edge = 2
    while (edge + 1) ** 4 <= total:
        edge += 1
    interior = lambda dtype: torch.rand((edge,) * 4, device="cuda", dtype=dtype)[1:-1, 1:-1, 1:-1, 1:-1]
    cases.append(("interior4-axes12", interior, (1, 2), False))
    return cases


def typed(dtypes):
    """(name, torch dtype, element bytes) of each of --dtypes."""
    for name in dtypes:
        dtype = getattr(torch, name)
        yield name, dtype, torch.tensor([], dtype=dtype).element_size()


def write_rows(rows, out):
    """The rows as a Google Benchmark-style JSON file with the environment."""
    context = {**environment(), "timing": "CUDA events, median of 7 batches of back-to-back calls, each batch >= ~20 ms"}
    with open(out, "w") as f:
        json.dump({"context": context, "benchmarks": rows}, f, indent=1)
    print(f"wrote {out}")
    return 0


def along(dtypes, names, out):
    """torch.sum / vecdot / vector_norm along dimensions, timed as the suite's along rows."""
    rows = []
    for dtype_name, dtype, element in typed(dtypes):
        for case, make, dims, columns in along_cases():
            x, y = make(dtype), make(dtype)
            n = x.numel()
            variants = [("along_sum", "torch_sum", lambda: torch.sum(x, dim=dims), 1,
                         lambda: x.double().sum(dim=dims))]
            if columns:
                variants += [("along_dot", "torch_vecdot", lambda: torch.linalg.vecdot(x, y, dim=0), 2,
                              lambda: (x.double() * y.double()).sum(dim=0)),
                             ("along_nrm2", "torch_vector_norm", lambda: torch.linalg.vector_norm(x, dim=0), 1,
                              lambda: x.double().square().sum(dim=0).sqrt())]
            for op, name, fn, arrays, reference in variants:
                if not torch.allclose(fn().double(), reference(), rtol=1e-3 if element < 8 else 1e-9):
                    fail(f"{op}/{name} on {case} differs from a float64 reference")
                rows.append(timed_row(f"{op}/{name}/{names[dtype_name]}/Cuda/along-{case}/{n}", fn, n,
                                      arrays * element * n))
            del x, y
            torch.cuda.empty_cache()
    return write_rows(rows, out)


def row_cases(limit=1 << 29):
    """suite_rows.cpp's cases: (op, name, M, N, transposed, along dimension 0)."""
    fit = lambda m, n: max(1, min(m, limit // n))
    sweep = (256, 512, 1024, 2048, 3072, 4096, 5120, 6144, 8192, 10240, 12288, 12672, 32768, 131072)
    cases = [(op, f"n{n}", fit(4096, n), n, False, False) for op in ("softmax", "rms_norm") for n in sweep]
    cases += [("softmax", "dim0-8192", 8192, 8192, False, True),
              ("softmax", "transposed-n4096", 4096, 4096, True, False),
              ("rms_norm", "n4095", fit(4096, 4095), 4095, False, False)]
    cases += [("layer_norm", f"n{n}", fit(4096, n), n, False, False) for n in (1024, 4095, 4096, 8192)]
    return cases


def row_operations(dtypes, names, out):
    """torch's and Triton's softmax and norms, timed as the suite's rows (bytes: one read and one write)."""
    import torch.nn.functional as F
    rows = []
    for dtype_name, dtype, element in typed(dtypes):
        for op, case, m, n, transposed, columns in row_cases():
            x = torch.randn((n, m) if transposed else (m, n), device="cuda", dtype=dtype)
            x = x.t() if transposed else x
            dim = 0 if columns else 1
            w, b = torch.randn(n, device="cuda", dtype=dtype), torch.randn(n, device="cuda", dtype=dtype)
            o = torch.empty((m, n), device="cuda", dtype=dtype)
            xd = x.double()
            if op == "softmax":
                graph = lambda: (lambda e: e / e.sum(dim=dim, keepdim=True))(
                    torch.exp(x - x.max(dim=dim, keepdim=True)[0]))
                variants = [("torch_softmax", lambda: torch.softmax(x, dim=dim)), ("torch_graph", graph)]
                if not columns and not transposed and n <= 16384:
                    variants.append(("triton_softmax", lambda: (triton_softmax(x, o), o)[1]))
                reference = torch.softmax(xd, dim=dim)
            elif op == "rms_norm":
                variants = [("torch_rms_norm", lambda: F.rms_norm(x, (n,), w, 1e-5))]
                reference = xd / (xd.square().mean(dim=1, keepdim=True) + 1e-5).sqrt() * w.double()
            else:
                variants = [("torch_layer_norm", lambda: F.layer_norm(x, (n,), w, b, 1e-5))]
                reference = F.layer_norm(xd, (n,), w.double(), b.double(), 1e-5)
            for name, fn in variants:
                tolerance = 2e-2 if element < 4 else 1e-4
                if not torch.allclose(fn().double(), reference, rtol=tolerance, atol=tolerance * 1e-2):
                    fail(f"{op}/{name} on {case} differs from a float64 reference")
                rows.append(timed_row(f"{op}/{name}/{names[dtype_name]}/Cuda/rows-{case}/{m * n}", fn, m * n,
                                      2 * element * m * n))
            del x, xd, o, reference
            torch.cuda.empty_cache()
    return write_rows(rows, out)


def environment():
    props = torch.cuda.get_device_properties(0)
    return {
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "host_name": socket.gethostname(),
        "kstream.gpu": props.name,
        "torch_version": torch.__version__,
        "triton_version": triton.__version__,
        "torch_cuda": torch.version.cuda,
        "python": platform.python_version(),
        "kstream.command": " ".join(sys.argv),
        "command": " ".join(sys.argv),
    }


def accuracy(directory, exact_path, out):
    """Relative errors of PyTorch's and Triton's float dot products on kstream_accuracy's inputs."""
    with open(exact_path) as f:
        measured = json.load(f)
    exact = {r["inputs"]: r["exact"] for r in measured["rows"]}
    rows = []
    for family, value in exact.items():
        try:
            x, y = (torch.from_file(f"{directory}/{family}_{v}.f32", size=measured["n"], dtype=torch.float32).cuda()
                    for v in ("x", "y"))
        except RuntimeError as e:
            fail(f"cannot read the {family} inputs in {directory} (written by kstream_accuracy --inputs): {e}")
        for method, got in (("torch.dot (cuBLAS)", torch.dot(x, y)), ("(x * y).sum() (PyTorch)", (x * y).sum()),
                            ("triton_dot (float accumulator)", triton_dot(x, y, dot_partials(x.numel())))):
            got = float(got)
            error = abs(got) if value == 0 else abs(got - value) / abs(value)
            rows.append({"backend": "Cuda", "inputs": family, "method": method, "result": got, "exact": value,
                         "relative_error": error})
            print(f"| {family} | {method} | {got:.17g} | {value:.17g} | {error:.2e} |")
        del x, y
    context = {**environment(), "kstream.commit": measured.get("context", {}).get("kstream.commit", "?"),
               "env.KSTREAM_MACHINE": measured.get("context", {}).get("env.KSTREAM_MACHINE", "?"),
               "env.OMP_NUM_THREADS": "-", "inputs_from": measured.get("context", {}).get("command", "?")}
    with open(out, "w") as f:
        json.dump({"context": context, "n": measured["n"], "rows": rows}, f, indent=1)
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
