"""Intervals and win rates: the one estimator of the project (95% Wilson score intervals).

Every win rate in the project (tournaments, train.py's evaluation, the exploitability probe)
comes from :func:`win_rate`; duplicate pairs use :func:`duplicate_win_interval`, which is the
same Wilson interval at the pairs' effective sample size.

>>> p, lo, hi = win_rate(80, 100)
>>> round(p, 2), round(lo, 3), round(hi, 3)
(0.8, 0.711, 0.867)
"""
from __future__ import annotations

import math

import numpy as np

Z95 = 1.959963984540054

# ============================================================================ interval maths


def wilson(p: float, n: float, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval of a proportion ``p`` observed over ``n`` trials.

    >>> [round(x, 4) for x in wilson(0.8, 10)]
    [0.4902, 0.9433]
    """
    if n <= 0:
        return (0.0, 1.0)
    z2 = z * z
    denom = 1.0 + z2 / n
    center = (p + z2 / (2 * n)) / denom
    half = z * math.sqrt(max(p * (1 - p), 0.0) / n + z2 / (4 * n * n)) / denom
    return (max(0.0, center - half), min(1.0, center + half))


def effective_n(pair_scores: np.ndarray) -> float:
    """Effective number of independent matches behind duplicate pair scores (see the module)."""
    y = np.asarray(pair_scores, dtype=np.float64)
    n = len(y)
    if n == 0:
        return 0.0
    p = float(y.mean())
    s2 = float(y.var(ddof=1)) if n > 1 else 0.0
    if s2 <= 0 or p * (1 - p) <= 0:
        return 2.0 * n
    return float(np.clip(n * p * (1 - p) / s2, 1.0, 4.0 * n))


def duplicate_win_interval(pair_scores: np.ndarray) -> tuple[float, float, float]:
    """``(win rate, low, high)`` from pair scores in {0, 1/2, 1}."""
    y = np.asarray(pair_scores, dtype=np.float64)
    if len(y) == 0:
        return (float("nan"), 0.0, 1.0)
    p = float(y.mean())
    lo, hi = wilson(p, effective_n(y))
    return (p, lo, hi)


def t_quantile(df: int, z: float = Z95) -> float:
    """Student t quantile (two-sided 95% by default), Cornish-Fisher expansion in 1/df."""
    if df <= 0:
        return float("inf")
    return (z + (z ** 3 + z) / (4 * df) + (5 * z ** 5 + 16 * z ** 3 + 3 * z) / (96 * df ** 2)
            + (3 * z ** 7 + 19 * z ** 5 + 17 * z ** 3 - 15 * z) / (384 * df ** 3))


def mean_interval(values: np.ndarray) -> tuple[float, float, float]:
    """``(mean, low, high)``: mean +- t * sd / sqrt(n)."""
    x = np.asarray(values, dtype=np.float64)
    n = len(x)
    if n == 0:
        return (float("nan"), float("nan"), float("nan"))
    m = float(x.mean())
    if n == 1:
        return (m, float("-inf"), float("inf"))
    half = t_quantile(n - 1) * float(x.std(ddof=1)) / math.sqrt(n)
    return (m, m - half, m + half)


def rate_bands(k: np.ndarray, n: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Rates ``k / n`` and their Wilson bands, elementwise (NaN where ``n == 0``)."""
    k = np.asarray(k, dtype=np.float64)
    n = np.asarray(n, dtype=np.float64)
    p = np.full(k.shape, np.nan)
    lo = np.full(k.shape, np.nan)
    hi = np.full(k.shape, np.nan)
    for idx in np.ndindex(k.shape):
        if n[idx] > 0:
            p[idx] = k[idx] / n[idx]
            lo[idx], hi[idx] = wilson(p[idx], n[idx])
    return p, lo, hi


# ============================================================================ ratings

ELO_SCALE = 400.0 / math.log(10.0)
ELO_MEAN = 1500.0


def win_rate(wins: float, n: float) -> tuple[float, float, float]:
    """``(rate, low, high)`` of ``wins`` out of ``n`` independent matches (Wilson, 95%)."""
    if n <= 0:
        return (float("nan"), 0.0, 1.0)
    p = wins / n
    lo, hi = wilson(p, n)
    return (p, lo, hi)
