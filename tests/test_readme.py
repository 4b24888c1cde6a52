"""Every command the README shows runs as written (on tiny budgets where it trains or plays).

The commands are read from the README's "Train, evaluate, play" block.  Two tests run them: the
training commands in order, and the other commands in order after the training commands whose
runs they read (``runs/NAME``).  Budgets are shrunk by
appending overrides, never by rewriting what the user would type: train.py takes the last
``key=value``; evaluate.py's ``--matches``/``--budget`` are replaced by small values.  Everything
runs in a temporary folder with a copy of ``configs/``.
"""
from __future__ import annotations

import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
TINY_TRAIN = ["total_steps=3000", "num_envs=32", "num_steps=8", "minibatch_size=128",
              "update_epochs=1", "eval_every=5", "eval_games=4", "final_eval_games=4",
              "checkpoint_every=1", "tensorboard=false", "progress=false", "hidden=[32]"]


def readme_commands() -> list[str]:
    text = (ROOT / "README.md").read_text()
    section = text[text.index("## Train, evaluate, play"):]
    block = re.search(r"```bash\n(.*?)```", section, re.S).group(1)
    out = []
    for line in block.splitlines():
        line = line.strip()
        if line.startswith("python"):
            out.append(line.split("   #")[0].split("  #")[0].strip())
    return out


def tiny(cmd: str) -> tuple[list[str], str | None]:
    """The argv to run for a README command, and the stdin to give it."""
    argv = shlex.split(cmd)
    assert argv[0] == "python"
    argv[0] = sys.executable
    if argv[1] in ("train.py", "evaluate.py"):
        argv[1] = str(ROOT / argv[1])
    if argv[1].endswith("train.py") and "--help" not in argv:
        argv += TINY_TRAIN + (["total_steps=6000"] if "--resume" in argv else [])
    if argv[1].endswith("evaluate.py"):
        for flag, small in (("--matches", "2"), ("--budget", "15s")):
            if flag in argv:
                argv[argv.index(flag) + 1] = small
        if "exploit" in argv:
            argv += ["--eval-matches", "2", "--num-envs", "32", "--num-steps", "8",
                     "--eval-games", "4", "--no-progress", "--set", "hidden=[32]",
                     "minibatch_size=128", "final_eval_games=4", "tensorboard=false"]
        elif "--no-progress" not in argv and argv[2] != "probe":
            argv += ["--no-progress"]
    stdin = "quit\n" if argv[1:3] == ["-m", "agents.play"] else None
    return argv, stdin


def test_readme_lists_the_commands():
    cmds = readme_commands()
    assert any(trains(c) for c in cmds)
    assert any("evaluate.py probe" in c for c in cmds)
    assert any(c.startswith("python -m agents.play") for c in cmds)


def trains(cmd: str) -> bool:
    """A README command that runs train.py (a run, a resume or its --help)."""
    return cmd.startswith("python train.py")


def run_of(cmd: str) -> str | None:
    """The run folder (under runs/) that a README ``train.py`` command writes, else None."""
    argv = shlex.split(cmd)
    if not trains(cmd) or "--help" in argv or "--resume" in argv:
        return None
    config = argv[argv.index("--config") + 1] if "--config" in argv else "configs/default.yaml"
    name = yaml.safe_load((ROOT / config).read_text()).get("run_name", "default")
    for arg in argv:
        if arg.startswith("run_name="):
            name = arg.split("=", 1)[1]
    return name


def run_all(cmds: list[str], cwd: Path) -> None:
    shutil.copytree(ROOT / "configs", cwd / "configs")
    for cmd in cmds:
        argv, stdin = tiny(cmd)
        proc = subprocess.run(argv, cwd=cwd, input=stdin, capture_output=True, text=True,
                              timeout=600)
        assert proc.returncode == 0, f"{cmd!r} failed:\n{proc.stdout[-2000:]}\n{proc.stderr[-3000:]}"


# The block runs as two tests so that pytest-xdist can run them side by side: the training
# commands in order, then the other commands after the training runs they read.
def test_readme_training_commands_run(tmp_path):
    run_all([c for c in readme_commands() if trains(c)], tmp_path)
    assert (tmp_path / "runs" / "default" / "checkpoints" / "latest.pt").is_file()


def test_readme_other_commands_run(tmp_path):
    cmds = readme_commands()
    others = [c for c in cmds if not trains(c)]
    read = set(re.findall(r"runs/([\w.-]+)", " ".join(others)))
    needed = [c for c in cmds if run_of(c) in read]
    assert {run_of(c) for c in needed} == read, f"no README command trains {read}"
    run_all(needed + others, tmp_path)
