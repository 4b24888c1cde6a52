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


def migrate(name: str, out_dir: Path = HERE) -> Path:
    """Rewrite a shipped policy of an older observation layout for this one, exactly.

    Layout versions only add pieces and actions (``truco_env.observe.ADDED_PIECES``, actions
    appended after ``mazo``): the first layer gets zero weights on the added inputs and the
    policy head zero rows for the added actions, so the network computes the same logits for
    every old action in every game the old layout could describe.
    """
    import torch
    from truco_env.observe import LAYOUT_VERSION, legacy_columns
    from truco_env.rules import NUM_ACTIONS
    ckpt = torch.load(HERE / f"{name}.pt", map_location="cpu", weights_only=True)
    old = ckpt.get("layout_version", 1)
    if old == LAYOUT_VERSION:
        return HERE / f"{name}.pt"
    kind = ckpt["game"]["observation"]
    cols = torch.as_tensor(legacy_columns(kind, old))
    if len(cols) != ckpt["obs_size"]:
        raise ValueError(f"{name}: {ckpt['obs_size']} inputs, but layout {old} of {kind!r} "
                         f"has {len(cols)}")
    from truco_env.observe import Encoder
    size = Encoder(kind).size
    m = dict(ckpt["model"])
    w = m["trunk.0.weight"]
    nw = torch.zeros((w.shape[0], size), dtype=w.dtype)
    nw[:, cols] = w
    m["trunk.0.weight"] = nw
    pw, pb = m["policy.weight"], m["policy.bias"]
    m["policy.weight"] = torch.cat([pw, torch.zeros((NUM_ACTIONS - pw.shape[0], pw.shape[1]),
                                                    dtype=pw.dtype)])
    m["policy.bias"] = torch.cat([pb, torch.zeros(NUM_ACTIONS - pb.shape[0], dtype=pb.dtype)])
    from agents.ppo_policy import save_checkpoint
    out = Path(out_dir) / f"{name}.pt"
    game = dict(ckpt["game"])
    game.setdefault("mode", "teams")
    save_checkpoint(out, {"model": m, "obs_size": size, "num_actions": NUM_ACTIONS,
                          "hidden": list(ckpt["hidden"]), "game": game,
                          "migrated_from_layout": old})
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
    mg = sub.add_parser("migrate", help="rewrite a shipped policy for this observation layout "
                                        "(zero weights on added inputs and actions)")
    mg.add_argument("name")
    args = ap.parse_args(argv)
    if args.cmd == "export":
        print(f"wrote {export(args.run_dir, args.name)}")
    elif args.cmd == "migrate":
        print(f"wrote {migrate(args.name)}")
    else:
        for n in names():
            print(n, info(n))
    return 0


if __name__ == "__main__":
    sys.exit(main())
