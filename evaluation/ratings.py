"""Ratings: a Bradley-Terry fit of match results on the Elo scale, with bootstrap intervals.

Bradley-Terry is fitted on every match (Hunter's MM algorithm), with one virtual drawn match per
pair of agents that met (so that a 200-0 record gives a large but finite gap), shown on the Elo
scale (400 log10 of the strength; mean 1500).  Intervals: percentile bootstrap over duplicate
pairs (resampled within each pairing), refitting every time.
"""
from __future__ import annotations

import numpy as np

from .stats import ELO_MEAN, ELO_SCALE


def bradley_terry(wins: np.ndarray, prior_draws: float = 1.0, iters: int = 10_000,
                  tol: float = 1e-12) -> np.ndarray:
    """Elo ratings (mean 1500) of a Bradley-Terry fit; ``wins[..., i, j]`` = wins of i over j.

    Leading axes are independent problems (bootstrap replicas).  ``prior_draws`` virtual
    drawn matches are added to every pair that played (half a win each).

    >>> w = np.array([[0, 75], [25, 0]])
    >>> r = bradley_terry(w, prior_draws=0); round(float(r[0] - r[1]), 2)
    190.85
    """
    W = np.asarray(wins, dtype=np.float64).copy()
    games = W + np.swapaxes(W, -1, -2)
    played = games > 0
    W = W + played * prior_draws / 2.0
    N = W + np.swapaxes(W, -1, -2)
    K = W.shape[-1]
    total = W.sum(axis=-1)
    gamma = np.ones(W.shape[:-1])
    for _ in range(iters):
        denom = (N / (gamma[..., :, None] + gamma[..., None, :])).sum(axis=-1)
        new = np.where(denom > 0, total / np.where(denom > 0, denom, 1.0), 1.0)
        new = np.maximum(new, 1e-300)
        new = new / np.exp(np.log(new).mean(axis=-1, keepdims=True))
        if np.max(np.abs(np.log(new) - np.log(gamma))) < tol:
            gamma = new
            break
        gamma = new
    r = ELO_SCALE * np.log(gamma)
    return r - r.mean(axis=-1, keepdims=True) + ELO_MEAN if K else r


def bootstrap_ratings(pair_wins: dict[tuple[int, int], np.ndarray], k: int, reps: int = 1000,
                      seed: int = 0, prior_draws: float = 1.0) -> np.ndarray:
    """Ratings ``[reps, k]`` refitted on duplicate pairs resampled within each pairing.

    ``pair_wins[(i, j)]``: per duplicate pair, the matches i won of the two (0, 1 or 2).
    """
    rng = np.random.default_rng(seed)
    W = np.zeros((reps, k, k))
    for (i, j), w in pair_wins.items():
        w = np.asarray(w, dtype=np.int64)
        n = len(w)
        if n == 0:
            continue
        counts = np.bincount(w, minlength=3) / n
        draw = rng.multinomial(n, counts, size=reps)         # pairs with 0, 1, 2 wins of i
        wi = draw[:, 1] + 2 * draw[:, 2]
        W[:, i, j] += wi
        W[:, j, i] += 2 * n - wi
    return bradley_terry(W, prior_draws=prior_draws)


def rating_table(wins: np.ndarray, pair_wins: dict[tuple[int, int], np.ndarray],
                 labels: list[str], specs: list[str], reps: int = 1000,
                 seed: int = 0) -> list[dict]:
    """One row per agent, best first: Elo, its 95% bootstrap interval, matches and wins."""
    K = len(labels)
    ratings = bradley_terry(wins)
    boot = bootstrap_ratings(pair_wins, K, reps=reps, seed=seed)
    lo, hi = np.percentile(boot, [2.5, 97.5], axis=0)
    games = wins + wins.T
    rows = [{"agent": labels[k], "spec": str(specs[k]), "elo": float(ratings[k]),
             "elo_lo": float(lo[k]), "elo_hi": float(hi[k]),
             "matches": int(games[k].sum()), "wins": int(wins[k].sum())} for k in range(K)]
    rows.sort(key=lambda r: -r["elo"])
    return rows
