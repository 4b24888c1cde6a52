"""The terminal player, driven by scripted input."""
from __future__ import annotations

import os
import re
import subprocess
import sys

import pytest

from agents.play import main


class Script:
    """An ``input_fn`` that answers from a list, then plays the first legal action shown."""

    def __init__(self, answers=(), then_first_legal=True):
        self.answers = list(answers)
        self.then_first_legal = then_first_legal
        self.out: list[str] = []
        self.prompts = 0

    def print(self, *args, **_):
        self.out.extend(" ".join(str(a) for a in args).split("\n"))

    def input(self, prompt: str) -> str:
        self.prompts += 1
        if self.prompts > 5000:
            raise AssertionError("too many prompts")
        if self.answers:
            answer = self.answers.pop(0)
            if answer == "FIRST_CARD":  # the first card of the hand shown last
                cards = [line for line in self.out if line.startswith("Your cards: ")][-1]
                return re.match(r"Your cards: \[\d\] (\S+)", cards).group(1).upper()
            return answer
        if not self.then_first_legal:
            raise EOFError
        legal = [line for line in self.out if line.startswith("Legal: ")][-1]
        return re.match(r"Legal: (\d+)", legal).group(1)

    @property
    def text(self) -> str:
        return "\n".join(self.out)


def test_full_match_1v1():
    s = Script()
    assert main(["--seed", "3", "--target", "9", "--opponent", "random"], s.input, s.print) == 0
    text = s.text
    assert re.search(r"You (win|lose) the match \d+-\d+\.", text)
    assert "--- Hand 1 over (" in text
    assert re.search(r"baza 1: .*-> (parda|team [01])", text)
    assert re.search(r"points: team 0 \(yours\) \+\d+, team 1 \(theirs\) \+\d+", text)
    assert "Your cards: [0]" in text and "Legal: " in text
    assert "(match to 9)" in text


def test_teams_with_bot_partners_and_buenas():
    s = Script()
    argv = ["--players", "4", "--seat", "1", "--seed", "5", "--target", "18",
            "--opponent", "heuristic", "--partner", "random"]
    assert main(argv, s.input, s.print) == 0
    text = s.text
    assert "you are player_1, team 1" in text
    assert "(partner)" in text
    assert "malas y buenas" in text
    assert re.search(r"You (win|lose) the match", text)


def test_bad_input_is_explained_and_asked_again():
    s = Script(["", "banana", "99", "-1", "12c9", "help", "quiero", "envido_x", "quit"],
               then_first_legal=False)
    assert main(["--seed", "1"], s.input, s.print) == 0
    text = s.text
    assert "unknown input 'banana'" in text
    assert "99 is not an action id" in text
    assert "type an action id or name" in text
    assert "Bye." in text
    # Nine prompts: every bad answer was asked again, and nothing was played by the human.
    assert s.prompts == 9


def test_card_and_name_inputs():
    s = Script(["FIRST_CARD", "ma"])  # a card (upper case), then a unique prefix of "mazo"
    main(["--seed", "2", "--target", "9", "--opponent", "random"], s.input, s.print)
    first_card = re.search(r"Your cards: \[0\] (\S+)", s.text).group(1)
    assert re.search(rf"[Bb]aza 1: (.*, )?you {first_card}", s.text)
    assert "--- Hand 1 over (" in s.text


@pytest.mark.parametrize("exc", [EOFError, KeyboardInterrupt])
def test_eof_and_ctrl_c_exit_cleanly(exc):
    def boom(prompt):
        raise exc

    out = []
    assert main(["--seed", "0"], boom, lambda *a, **k: out.append(" ".join(map(str, a)))) == 0
    assert "Bye." in "\n".join(out)


def test_bad_arguments_exit_with_usage():
    for argv in (["--seat", "2"], ["--players", "3"], ["--target", "7"],
                 ["--opponent", "nobody"], ["--opponent", "heuristic:nope=1"]):
        with pytest.raises(SystemExit) as e:
            main(argv, input, print)
        assert e.value.code == 2


def test_module_runs_with_stdin():
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    proc = subprocess.run([sys.executable, "-m", "agents.play", "--seed", "4"],
                          input="nonsense\n0\n", capture_output=True, text=True, timeout=120,
                          cwd=root)
    assert proc.returncode == 0, proc.stderr
    assert "unknown input 'nonsense'" in proc.stdout
    assert "Bye." in proc.stdout
    assert "Traceback" not in proc.stderr
