"""Trained policies that ship with the package: ``agents.load("pretrained:NAME")``.

Each ``NAME.pt`` holds the final policy of a ``train.py`` config, weights only (no optimizer,
critic or pool), in float16, with the game it was trained for and its observation layout
version.  :func:`names` lists them; the README has their tournament table.  A file whose layout
version differs from :data:`truco_env.observe.LAYOUT_VERSION` is refused with a named error
(the shipped files are retrained when the layout changes, or carried over exactly by
:func:`migrate` when the change only added pieces and actions).

Export a run's policy (what the maintainers do after a training run)::

    python -m agents.pretrained export runs/default default
    python -m agents.pretrained export runs/solved30 robust --envido robust   # another envido
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


def export(run_dir: str | Path, name: str, out_dir: Path = HERE, envido: str | None = None
           ) -> Path:
    """Write ``out_dir/NAME.pt`` from a run's checkpoint (weights only, float16).

    ``envido`` replaces how the policy plays the envido (the run's ``envido`` key): a run of
    the solved envido exported with ``"robust"`` plays the data-biased response instead
    (:mod:`agents.solved_envido`); a network that never took an envido decision (a run of
    ``solved`` or ``robust``) cannot be exported as ``learned``."""
    from agents.ppo_policy import load_checkpoint, save_checkpoint
    ckpt = load_checkpoint(run_dir)
    cfg = ckpt["config"]
    game = {k: cfg[k] for k in ("players", "rules", "target", "flor", "observation")}
    game.update({k: cfg[k] for k in ("senas", "sena_tokens", "sena_catch", "envido") if k in cfg})
    if cfg.get("truco_answers"):
        game["truco_answers"] = cfg["truco_answers"]
    if cfg.get("truco_gate") is not None:
        game["truco_gate"] = cfg["truco_gate"]
    if envido is not None:
        from agents.solved_envido import NETWORK_ENVIDO, canonical_envido
        envido = canonical_envido(envido)                # named error; every setting recorded
        was = game.get("envido", "learned")
        if was not in NETWORK_ENVIDO and envido in NETWORK_ENVIDO:
            raise ValueError(f"envido={envido!r}: the run {str(run_dir)!r} was trained with "
                             f"envido={was!r}, so its network never took an envido decision; "
                             f"expected 'solved' or 'robust'")
        game["envido"] = envido
    game.update(global_step=int(ckpt["global_step"]),
                train_seconds=round(float(ckpt.get("elapsed", 0.0)), 1))
    out = Path(out_dir) / f"{name}.pt"
    save_checkpoint(out, {"model": {k: v.half() for k, v in ckpt["model"].items()},
                          "obs_size": ckpt["obs_size"], "num_actions": ckpt["num_actions"],
                          "hidden": list(ckpt["hidden"]), "skip": list(ckpt.get("skip", ())),
                          "game": game})
    out.chmod(0o644)     # package data: readable by everyone (temporary files are 0600)
    return out


class MigrationError(ValueError):
    """A checkpoint that :func:`widen_inputs` cannot carry to this observation layout: a layout
    before 2 (whose changes were not only added pieces), a layout newer than this code's, or
    an input size that is not its layout's."""


def widen_inputs(ckpt: dict, name: str = "checkpoint") -> dict:
    """A checkpoint of an older observation layout carried to this one, exactly.

    Layout versions after 2 only add pieces (``truco_env.observe.ADDED_PIECES``: 3 the reads,
    4 ``pica_pica``, 5 the three-player pieces, 6 ``senas``, 7 ``truco_reads``) and actions
    (the discards, then the señas, appended after ``mazo``): the first layer gets zero weights
    on the added inputs (of a network that skips pieces, on the added live inputs) and the
    policy head zero
    rows for the added actions (illegal in every game the old policy played, so never chosen),
    so the network computes the same logits for every old action in every game the old layout
    could describe (the history and calls pieces keep the first 16 actions: the discards and
    señas are never in them).  Any other layout change needs a retrained policy: a
    :class:`MigrationError` naming the checkpoint says so.  ``ckpt`` is not changed; a
    checkpoint already of this layout comes back as it is.
    """
    import torch
    from truco_env.observe import KINDS, LAYOUT_VERSION, Encoder, legacy_columns, live_columns
    from truco_env.rules import NUM_ACTIONS
    old = int(ckpt.get("layout_version", 1))
    if old == LAYOUT_VERSION and int(ckpt["num_actions"]) == NUM_ACTIONS:
        return ckpt
    if not 2 <= old <= LAYOUT_VERSION:
        raise MigrationError(f"{name}: observation layout {old} cannot be migrated to layout "
                             f"{LAYOUT_VERSION}; only layouts 2..{LAYOUT_VERSION} (which differ "
                             f"by added pieces) can; retrain the policy")
    kind = ckpt.get("game", ckpt.get("config", {})).get("observation", "compact")
    if kind not in KINDS:
        raise MigrationError(f"{name}: unknown observation kind {kind!r}; expected one of "
                             f"{list(KINDS)}")
    cols = torch.as_tensor(legacy_columns(kind, old))
    if len(cols) != int(ckpt["obs_size"]):
        raise MigrationError(f"{name}: {ckpt['obs_size']} inputs, but layout {old} of {kind!r} "
                             f"has {len(cols)}; it cannot be migrated")
    size = Encoder(kind).size
    # A network that skips pieces (``PolicyNet(skip=...)``) has a first-layer column for each
    # live input only: the old live columns keep their weights, the added pieces' get zeros.
    try:
        live = torch.as_tensor(live_columns(kind, tuple(ckpt.get("skip") or ())))
    except ValueError as exc:
        raise MigrationError(f"{name}: {exc}") from None
    keep = torch.isin(live, cols)
    m = dict(ckpt["model"])
    first = next(k for k, v in m.items() if k.endswith("weight") and v.ndim == 2)
    w = m[first]
    if int(keep.sum()) != w.shape[1]:
        raise MigrationError(f"{name}: its first layer reads {w.shape[1]} inputs, but layout "
                             f"{old} of {kind!r} without {list(ckpt.get('skip') or ())} has "
                             f"{int(keep.sum())}; it cannot be migrated")
    nw = torch.zeros((w.shape[0], len(live)), dtype=w.dtype)
    nw[:, keep] = w
    m[first] = nw
    pw, pb = m["policy.weight"], m["policy.bias"]
    add = NUM_ACTIONS - pw.shape[0]
    m["policy.weight"] = torch.cat([pw, torch.zeros((add, pw.shape[1]), dtype=pw.dtype)])
    m["policy.bias"] = torch.cat([pb, torch.zeros(add, dtype=pb.dtype)])
    out = {k: v for k, v in ckpt.items() if k not in ("format", "layout_version")}
    out.update(model=m, obs_size=size, num_actions=NUM_ACTIONS, layout_version=LAYOUT_VERSION,
               migrated_from_layout=int(ckpt.get("migrated_from_layout", old)))
    return out


def migrate(name: str, out_dir: Path = HERE) -> Path:
    """Rewrite a shipped policy of an older observation layout for this one, exactly
    (:func:`widen_inputs`); the one way a shipped policy crosses a layout version
    (``python -m agents.pretrained migrate NAME``).  A :class:`MigrationError` when it cannot.
    """
    import torch
    from agents.ppo_policy import save_checkpoint
    src = path_of(name)
    ckpt = torch.load(src, map_location="cpu", weights_only=True)
    wide = widen_inputs(ckpt, name)
    out = Path(out_dir) / f"{name}.pt"
    if wide is ckpt and out.resolve() == src.resolve():
        return out
    save_checkpoint(out, {k: v for k, v in wide.items() if k not in ("format", "layout_version")})
    out.chmod(0o644)
    return out


#: What a run checkpoint keeps when :func:`migrate_checkpoint` carries it to this layout: the
#: policy and what plays it (its run's config: envido, truco answers); not the optimizer,
#: critic, pool nor the workers' states, whose shapes or meaning are the old layout's.
PLAY_KEYS = ("model", "obs_size", "num_actions", "hidden", "skip", "observation", "config",
             "global_step", "iteration", "elapsed", "game", "migrated_from_layout")


def migrate_checkpoint(path: str | Path, out: str | Path) -> Path:
    """Write ``out``: the policy of the run checkpoint ``path`` (a ``.pt`` file or a run
    folder) carried to this observation layout by :func:`widen_inputs`, to play and evaluate
    (``checkpoint:OUT``); it keeps the run's config but no training state, so it cannot be
    resumed (``python -m agents.pretrained migrate --checkpoint PATH --out OUT``).  The source
    is not changed; ``out`` must be another file."""
    import torch
    from agents.ppo_policy import CheckpointError, resolve_checkpoint, save_checkpoint
    src = resolve_checkpoint(path)
    out = Path(out)
    if out.exists() and out.resolve() == src.resolve():
        raise ValueError(f"--out {str(out)!r} is the checkpoint being migrated; expected "
                         f"another file (the source is kept as it is)")
    try:
        ckpt = torch.load(src, map_location="cpu", weights_only=True)
    except Exception as exc:
        raise CheckpointError(f"checkpoint {str(src)!r} is corrupt or not a torch file "
                              f"({type(exc).__name__})") from None
    if not isinstance(ckpt, dict) or "model" not in ckpt:
        raise CheckpointError(f"{str(src)!r} is not a truco_env PPO checkpoint")
    wide = widen_inputs({k: v for k, v in ckpt.items() if k in PLAY_KEYS or k == "layout_version"},
                        str(src))
    save_checkpoint(out, {k: v for k, v in wide.items() if k in PLAY_KEYS})
    return out


def load_net(name: str):
    """``pretrained:NAME``'s network (float32 weights) and its game settings (the
    checkpoint's ``game``: envido, truco_answers, truco_gate): the one loading of a shipped
    policy, for :func:`_factory` and the truco answerer (``agents.ppo_policy``)."""
    from agents.ppo_policy import load_checkpoint, net_from_checkpoint
    ckpt = load_checkpoint(path_of(name))
    ckpt["model"] = {k: v.float() for k, v in ckpt["model"].items()}
    return net_from_checkpoint(ckpt), ckpt.get("game", {})


def _factory(args: str, seed: int | None):
    """``pretrained:NAME`` (``pretrained:NAME,greedy`` plays the argmax action)."""
    from agents.ppo_policy import PolicyAgent
    name, greedy = args.strip(), False
    if name.endswith(",greedy"):
        name, greedy = name[: -len(",greedy")], True
    net, game = load_net(name)
    return PolicyAgent(net, greedy=greedy, seed=seed, name=f"pretrained:{name}",
                       envido=game.get("envido", "learned"),
                       truco_answers=game.get("truco_answers"),
                       truco_gate=game.get("truco_gate"))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m agents.pretrained",
                                 description="List or export the shipped policies.")
    sub = ap.add_subparsers(dest="cmd", required=True)
    sub.add_parser("list", help="the shipped policies and what they were trained for")
    ex = sub.add_parser("export", help="write a run's final policy as agents/pretrained/NAME.pt")
    ex.add_argument("run_dir")
    ex.add_argument("name")
    ex.add_argument("--envido", help="how the exported policy plays the envido: learned, "
                    "solved, robust (robust:p=1,n0=5,matches=2000) or adaptive "
                    "(adaptive:mazo=0.2) (default: as its run)")
    mg = sub.add_parser("migrate", help="rewrite a shipped policy for this observation layout "
                                        "(zero weights on added inputs and actions)")
    mg.add_argument("name", nargs="?", help="a shipped policy (rewritten in place)")
    mg.add_argument("--checkpoint", metavar="PATH", help="instead, a run's checkpoint (a .pt "
                    "file or a run folder): its policy, to play, is written to --out")
    mg.add_argument("--out", metavar="FILE", help="where --checkpoint's migrated policy goes")
    args = ap.parse_args(argv)
    if args.cmd == "migrate" and (args.checkpoint is None) == (args.name is None):
        ap.error("migrate takes a shipped policy's NAME or --checkpoint PATH --out FILE")
    if args.cmd == "migrate" and args.checkpoint is not None and not args.out:
        ap.error("migrate --checkpoint needs --out FILE (the source is kept as it is)")
    if args.cmd == "export":
        print(f"wrote {export(args.run_dir, args.name, envido=args.envido)}")
    elif args.cmd == "migrate":
        try:
            print(f"wrote {migrate(args.name) if args.name else migrate_checkpoint(args.checkpoint, args.out)}")
        except (MigrationError, ValueError) as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 2
    else:
        for n in names():
            print(n, info(n))
    return 0


if __name__ == "__main__":
    sys.exit(main())
