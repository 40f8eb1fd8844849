"""The ``@triton.jit`` helpers a kernel file may carry, by name.

Some body ops have no core ``tl`` op (tanh, log1p, general powf/powi), and
``tl.reduce`` needs a combine function per reduction; both are small
``@triton.jit`` functions written in core ``tl`` ops and emitted into the
kernel file when used (``body.py`` and ``reduction.py`` name them,
``source.py`` writes them).  Why not ``libdevice`` or ``tl.sum``: the Triton
interpreter cannot run ``libdevice`` (its stubs return ``None``) nor the
``@triton.jit`` functions of ``triton.language.standard``, which are fixed as
compiled when triton is imported; written here, the interpreter runs exactly
the code the GPU runs, and one code path that is tested on CPU beats a faster
one that never is.
"""

from __future__ import annotations

# Helpers emitted into the kernel file when used.  Written in core tl ops so
# the interpreter runs exactly the code the GPU runs.  Inputs are fp32/fp64.
HELPERS: dict[str, str] = {
    "_tanh": '''@triton.jit
def _tanh(x):
    # tanh = sign(x) (1 - e) / (1 + e), e = exp(-2|x|); an odd Taylor
    # polynomial below |x| < 1/16 avoids the cancellation in 1 - e.
    ax = tl.abs(x)
    e = tl.exp(-2.0 * ax)
    big = (1.0 - e) / (1.0 + e)
    x2 = x * x
    small = ax * (1.0 + x2 * (-0.3333333333333333 + x2 * (0.13333333333333333
            + x2 * (-0.05396825396825397 + x2 * (0.021869488536155203 + x2 * -0.008863235529902197)))))
    t = tl.where(ax < 0.0625, small, big)
    return tl.where(x < 0.0, -t, t)
''',
    "_log1p": '''@triton.jit
def _log1p(x):
    # Kahan: log(u) * x / (u - 1) with u = 1 + x is accurate to a few ulps.
    u = 1.0 + x
    d = u - 1.0
    return tl.where(d == 0.0, x, tl.log(u) * (x / tl.where(d == 0.0, 1.0, d)))
''',
    "_powf": '''@triton.jit
def _powf(x, y):
    # C pow() semantics on exp2(y * log2|x|): the sign for odd integer y, NaN
    # for a negative base and non-integer y, pow(x, 0) = 1.
    r = tl.exp2(y * tl.log2(tl.abs(x)))
    y_int = tl.floor(y) == y
    y_odd = y_int & (tl.abs(y - 2.0 * tl.floor(y * 0.5)) == 1.0)
    r = tl.where((x < 0.0) & y_odd, -r, r)
    r = tl.where((x < 0.0) & (tl.floor(y) != y), float("nan"), r)
    return tl.where(y == 0.0, 1.0, r)
''',
    "_powi": '''@triton.jit
def _powi(x, n):
    # x ** n for an integer tensor n (LLVM powi): exp2(n * log2|x|), the sign
    # from the parity of the integer itself (exact), pow(x, 0) = 1.
    r = tl.exp2(n.to(x.dtype) * tl.log2(tl.abs(x)))
    r = tl.where((x < 0.0) & ((n & 1) != 0), -r, r)
    return tl.where(n == 0, 1.0, r)
''',
    "_sum_combine": '''@triton.jit
def _sum_combine(a, b):
    return a + b
''',
    "_prod_combine": '''@triton.jit
def _prod_combine(a, b):
    return a * b
''',
    "_maximum_combine": '''@triton.jit
def _maximum_combine(a, b):
    return tl.maximum(a, b, propagate_nan=tl.PropagateNan.ALL)
''',
    "_minimum_combine": '''@triton.jit
def _minimum_combine(a, b):
    return tl.minimum(a, b, propagate_nan=tl.PropagateNan.ALL)
''',
    "_maxnum_combine": '''@triton.jit
def _maxnum_combine(a, b):
    return tl.maximum(a, b)
''',
    "_minnum_combine": '''@triton.jit
def _minnum_combine(a, b):
    return tl.minimum(a, b)
''',
    "_welford_combine": '''@triton.jit
def _welford_combine(mean_a, m2_a, n_a, mean_b, m2_b, n_b):
    # Chan et al.: two lanes' (mean, sum of squared deviations, count) as one; an empty lane adds nothing.
    n = n_a + n_b
    share_b = tl.where(n == 0.0, 0.0, n_b / tl.where(n == 0.0, 1.0, n))
    delta = mean_b - mean_a
    return mean_a + delta * share_b, m2_a + m2_b + delta * delta * n_a * share_b, n
''',
}
