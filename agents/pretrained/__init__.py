"""Trained policies that ship with the package: ``agents.load("pretrained:NAME")``.

Each ``NAME.pt`` holds the final policy of a ``train.py`` config, weights only (no optimizer,
critic or pool), in float16, with the game it was trained for and its observation layout
version.  :func:`names` lists them; the README has their tournament table.  A file whose layout
version differs from :data:`truco_env.observe.LAYOUT_VERSION` is refused with a named error
(the shipped files are retrained whenever the layout changes).

Export a run's policy (what the maintainers do after a training run)::

    python -m agents.pretrained export runs/default default
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent


def names() -> list[str]:
    """The shipped policies."""
    return sorted(p.stem for p in HERE.glob("*.pt"))


def path_of(name: str) -> Path:
    p = HERE / f"{name}.pt"
    if not name or not p.is_file():
        raise ValueError(f"unknown pretrained policy {name!r}; shipped: {names()}")
    return p


def info(name: str) -> dict:
    """What a shipped policy was trained for: ``{"players", "rules", "target", "flor",
    "observation", "global_step", "train_seconds"}``."""
    from agents.ppo_policy import load_checkpoint
    return dict(load_checkpoint(path_of(name))["game"])


def export(run_dir: str | Path, name: str, out_dir: Path = HERE) -> Path:
    """Write ``out_dir/NAME.pt`` from a run's checkpoint (weights only, float16)."""
    from agents.ppo_policy import load_checkpoint, save_checkpoint
    ckpt = load_checkpoint(run_dir)
    cfg = ckpt["config"]
    game = {k: cfg[k] for k in ("players", "rules", "target", "flor", "observation")}
    game.update(global_step=int(ckpt["global_step"]),
                train_seconds=round(float(ckpt.get("elapsed", 0.0)), 1))
    out = Path(out_dir) / f"{name}.pt"
    save_checkpoint(out, {"model": {k: v.half() for k, v in ckpt["model"].items()},
                          "obs_size": ckpt["obs_size"], "num_actions": ckpt["num_actions"],
                          "hidden": list(ckpt["hidden"]), "game": game})
    out.chmod(0o644)     # package data: readable by everyone (temporary files are 0600)
    return out


def widen_inputs(name: str, at: int, n: int, out_dir: Path = HERE) -> Path:
    """Give a shipped policy ``n`` new zero input columns at index ``at`` and stamp it with the
    current layout version: for a layout change that only inserts a piece that is zero in the
    games the policy was trained for (layout 4's ``pica_pica`` piece, issue 12), the network
    computes exactly what it did.  Any other layout change needs a retrained policy."""
    import torch
    from agents.ppo_policy import save_checkpoint
    ckpt = torch.load(path_of(name), map_location="cpu", weights_only=True)
    first = next(k for k, v in ckpt["model"].items() if k.endswith("weight") and v.ndim == 2)
    w = ckpt["model"][first]
    zeros = torch.zeros(w.shape[0], n, dtype=w.dtype)
    ckpt["model"][first] = torch.cat([w[:, :at], zeros, w[:, at:]], dim=1)
    payload = {k: v for k, v in ckpt.items() if k not in ("format", "layout_version")}
    payload["obs_size"] = int(ckpt["obs_size"]) + n
    out = Path(out_dir) / f"{name}.pt"
    save_checkpoint(out, payload)
    out.chmod(0o644)
    return out


def _factory(args: str, seed: int | None):
    """``pretrained:NAME`` (``pretrained:NAME,greedy`` plays the argmax action)."""
    from agents.ppo_policy import PolicyAgent, load_checkpoint, net_from_checkpoint
    name, greedy = args.strip(), False
    if name.endswith(",greedy"):
        name, greedy = name[: -len(",greedy")], True
    ckpt = load_checkpoint(path_of(name))
    ckpt["model"] = {k: v.float() for k, v in ckpt["model"].items()}
    return PolicyAgent(net_from_checkpoint(ckpt), greedy=greedy, seed=seed,
                       name=f"pretrained:{name}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m agents.pretrained",
                                 description="List or export the shipped policies.")
    sub = ap.add_subparsers(dest="cmd", required=True)
    sub.add_parser("list", help="the shipped policies and what they were trained for")
    ex = sub.add_parser("export", help="write a run's final policy as agents/pretrained/NAME.pt")
    ex.add_argument("run_dir")
    ex.add_argument("name")
    args = ap.parse_args(argv)
    if args.cmd == "export":
        print(f"wrote {export(args.run_dir, args.name)}")
    else:
        for n in names():
            print(n, info(n))
    return 0


if __name__ == "__main__":
    sys.exit(main())
