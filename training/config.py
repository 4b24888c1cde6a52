"""train.py's configuration: the typed :class:`Config` (a help string per key), YAML files,
``key=value`` overrides and the command line, with errors that name the bad key or value.

>>> cfg = make_config({"total_steps": "2e6", "hidden": "64,32"})
>>> cfg.total_steps, cfg.hidden, cfg.num_iterations
(2000000, [64, 32], 62)
>>> make_config({"learning_rat": 0.1})  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
training.config.ConfigError: unknown config key 'learning_rat' (did you mean learning_rate?)...
"""
from __future__ import annotations

import argparse
import dataclasses
import importlib.util
import math
import typing
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional

import yaml

DEFAULT_CONFIG = Path(__file__).resolve().parents[1] / "configs" / "default.yaml"


def _f(default: Any, help: str, **meta: Any) -> Any:
    if isinstance(default, list):
        return field(default_factory=lambda: list(default), metadata={"help": help, **meta})
    return field(default=default, metadata={"help": help, **meta})


@dataclass
class Config:
    # --- run
    run_name: str = _f("default", "output folder name under runs_dir")
    seed: int = _f(1, "seed of the environment, the network and the opponent sampling")
    total_steps: int = _f(30_000_000, "environment steps to train for (all seats, all games)")
    time_budget: float = _f(0.0, "stop after this many seconds of training (0 = no limit); "
                                 "the learning rate then anneals over the budget")
    runs_dir: str = _f("runs", "parent folder of run folders")
    device: str = _f("auto", "learner device", choices=("auto", "cpu", "cuda"))
    threads: int = _f(0, "torch CPU threads (0 = every core)")
    progress: bool = _f(True, "show a progress bar on a terminal (false, or stdout not a "
                              "terminal: one line per evaluation instead)")
    tensorboard: bool = _f(True, "write TensorBoard events next to metrics.csv")
    backend: str = _f("local", "where the rollouts run: local (one process steps every game) or "
                               "ray (Ray actors step num_envs/workers games each; pip install "
                               "-e \".[ray]\"; docs/training.md)", choices=("local", "ray"))
    workers: int = _f(1, "rollout workers of backend=ray (num_envs must divide evenly; the "
                         "local backend has one)")
    ray_address: Optional[str] = _f(None, "backend=ray: the cluster to join ('auto': the one "
                                          "`ray start --head` started; null = start a local "
                                          "Ray instance for this run)")
    # --- game
    players: int = _f(2, "seats (2, 4 or 6; teams alternate seats; 3 for the three-player "
                         "modes)", choices=(2, 3, 4, 6))
    rules: str = _f("argentino", "rule preset", choices=("argentino", "trucoshi", "uruguayo",
                                                         "pata_de_gallo", "destantado"))
    target: Optional[int] = _f(30, "points to win the match (null = the preset's default)")
    flor: Optional[bool] = _f(None, "play with flor (null = the preset's default)")
    pica_pica: Optional[bool] = _f(None, "pica-pica hands, 1v1 duels (docs/rules.md section 11; "
                                         "null = the preset's: trucoshi 6 players)")
    senas: str = _f("off", "señas between partners (docs/rules.md section 13; team games "
                           "only)", choices=("off", "traditional", "learned"))
    sena_tokens: int = _f(8, "tokens of the learned señas (1..16)")
    sena_catch: float = _f(0.25, "probability that each opponent catches each seña")
    episode: str = _f("match", "an episode: a match, or one hand (small games: deal = one hand "
                               "of a new match at 0-0, rewards in points; the evaluations, "
                               "which play matches, must be off: eval_every=0, "
                               "final_eval_games=0)", choices=("match", "deal"))
    deck: Optional[str] = _f(None, "the cards in play, e.g. '1e 7e 3e 12e 1b 3b 12b' (null = "
                                   "the 40; small Truco, truco_env.openspiel)")
    calls: Optional[str] = _f(None, "the actions besides play_k allowed, e.g. 'envido truco' "
                                    "(null = all; small Truco)")
    winprob_reward: float = _f(1.0, "shaping: add this times the change of the team's match "
                                    "win potential 2*W(score)-1 (truco_env.winprob, W measured "
                                    "from heuristic hands; 0 at the end, so it telescopes)")
    score_reward: float = _f(0.0, "shaping: add this times (points won - points conceded) / "
                                  "target to the match reward of +1/-1")
    observation: str = _f("compact", "the policy's encoder (truco_env.observe): recall (perfect "
                                    "recall: who played which card, the calls in order), compact "
                                    "or infostate", choices=("recall", "compact", "infostate"))
    critic: str = _f("shared", "value function: privileged (a separate network that also "
                                   "sees every hand, training only; the policy never does) or "
                                   "shared (a value head on the policy's trunk)",
                     choices=("privileged", "shared"))
    critic_hidden: list = _f([256, 128], "hidden layer widths of the privileged critic")
    envido: str = _f("learned", "the policy's envido decisions: learned (by the network); "
                               "solved (an equilibrium of the envido betting, "
                               "agents.solved_envido: the learner, its snapshots and the saved "
                               "policy take every envido decision from it and the network "
                               "learns the rest); anchored (learned, with envido_coef times "
                               "KL(solution || policy) on the envido decisions in the loss); "
                               "robust (as solved, from the data-biased response to the "
                               "training opponents' envido, agents.solved_envido.robust_for; "
                               "robust:p=1,n0=5,matches=2000 sets it, and the run records "
                               "every setting); adaptive (robust, and against an opponent "
                               "read as random from his mazos a response of its own, "
                               "agents.solved_envido.adaptive_for; adaptive:mazo=0.2 sets "
                               "it; adaptive:bold=2 adds the plain class, a bolder response "
                               "to opponents who sing little, measured exploitable and off "
                               "by default). All but learned: argentino 1v1 without flor")
    envido_coef: float = _f(0.3, "envido=anchored: weight of KL(solution || policy) on the "
                                 "envido decisions (losses/envido_kl)")
    truco_answers: Optional[str] = _f(None, "a shipped policy (agents/pretrained, e.g. robust) "
                                            "whose network answers the opponent's truco, "
                                            "retruco and vale cuatro for the learner, its "
                                            "snapshots and the saved policy; the network "
                                            "learns the rest (agents.truco_answers). Compact "
                                            "argentino 1v1 without flor")
    truco_gate: Optional[float] = _f(None, "with truco_answers: while the opponent folded to "
                                           "our truco songs less often than this in the match "
                                           "(truco_reads, (folds + 1) / (answers + 2)), a "
                                           "song the network sings on its own initiative is "
                                           "handed to the answerer's network, which decides "
                                           "there (agents.truco_answers.gated); none: never")
    # --- PPO
    num_envs: int = _f(1024, "games stepped together")
    num_steps: int = _f(32, "environment steps per game per rollout")
    hidden: list = _f([256, 128], "hidden layer widths of the MLP (shared trunk)")
    learning_rate: float = _f(1e-3, "Adam learning rate")
    anneal_lr: bool = _f(True, "decay the learning rate linearly to zero")
    gamma: float = _f(0.999, "discount per decision of a seat")
    gae_lambda: float = _f(0.95, "GAE lambda")
    minibatch_size: int = _f(4096, "learner transitions per gradient step")
    update_epochs: int = _f(3, "passes over the rollout per update")
    norm_adv: bool = _f(True, "normalise advantages per minibatch")
    clip_coef: float = _f(0.2, "PPO surrogate clipping")
    clip_vloss: bool = _f(False, "clip the value loss too")
    ent_coef: float = _f(0.01, "entropy bonus coefficient")
    vf_coef: float = _f(0.5, "value loss coefficient")
    max_grad_norm: float = _f(0.5, "gradient norm clip")
    target_kl: Optional[float] = _f(None, "stop the epoch loop early above this KL (null = off)")
    magnet_coef: float = _f(0.0, "regularised self-play: weight of KL(policy || magnet) in the "
                                 "loss, the magnet a frozen copy of the learner (magnet "
                                 "mirror descent / R-NaD; 0 = off)")
    magnet_every: int = _f(100, "iterations between the magnet's refreshes (a copy of the "
                                "learner then)")
    magnet: str = _f("learner", "what the magnet is: learner (a copy of the learner, refreshed "
                                "every magnet_every iterations) or init (the network of init=, "
                                "never refreshed: a best response to the opponents regularised "
                                "toward a fixed policy, a restricted Nash response)",
                     choices=("learner", "init"))
    init: Optional[str] = _f(None, "start the learner from a trained policy's network: "
                                   "pretrained:NAME or checkpoint:PATH, with this config's "
                                   "hidden widths and observation pieces (none: a new network)")
    # --- opponents
    self_play_frac: float = _f(0.3, "fraction of matches where every seat is the learner")
    pool_weight: float = _f(0.3, "weight of past snapshots among the other matches")
    heuristic_weight: float = _f(0.6, "weight of the heuristic baseline among the other matches")
    styles_weight: float = _f(0.0, "weight of the training styles of agents.zoo (heuristic "
                                   "variants; the held-out ones are never trained against)")
    random_styles: int = _f(0, "heuristic styles with random knobs (agents.zoo.random_styles; "
                               "never near a held-out style) added to the training styles, "
                               "which share styles_weight evenly")
    random_weight: float = _f(0.1, "weight of the random baseline among the other matches")
    opponent: str = _f("", "an extra fixed opponent, an agents.load spec (e.g. "
                           "checkpoint:runs/x or heuristic:bluff=0.3); '' = none")
    opponent_weight: float = _f(0.0, "weight of `opponent` among the other matches (with "
                                     "self_play_frac=0 and the other weights 0 this trains a "
                                     "best response: evaluate.py exploit)")
    exploiter_weight: float = _f(0.0, "weight of the exploiter among the other matches: a "
                                      "second network trained only to beat the learner (a "
                                      "league's main exploiter; 0 = none)")
    exploiter_reset_every: int = _f(400, "iterations an exploiter lives: then it joins the "
                                         "pool as a snapshot and restarts from the learner")
    exploiter_init: str = _f("learner", "what every exploiter starts as: a copy of the learner, "
                                        "a freshly initialised network (scratch), which "
                                        "does not inherit the learner's blind spots, or "
                                        "(continue) its predecessor, which goes on learning "
                                        "(the first one is new)",
                             choices=("learner", "scratch", "continue"))
    exploiter_hunt: int = _f(0, "iterations at the start of every exploiter's life but the "
                                "first in which it plays every new match against a frozen "
                                "learner and only it trains (a best-response phase); 0 = none")
    hunt_rollouts: int = _f(1, "a hunt iteration's rollout is cut into this many shorter ones "
                               "(num_steps / hunt_rollouts steps a game), each followed by the "
                               "exploiter's update: fresher data and more updates per step, "
                               "the shape of evaluate.py exploit's best response")
    hunt_epochs: Optional[int] = _f(None, "update_epochs of the exploiter's updates in a hunt "
                                          "(null = update_epochs)")
    pool_size: int = _f(8, "past snapshots kept in the pool: the pool_recent newest and a "
                           "uniform (reservoir) sample of all older ones")
    pool_recent: int = _f(2, "newest snapshots always kept in the pool")
    snapshot_every: int = _f(10, "iterations between snapshots added to the pool")
    pfsp_power: float = _f(1.0, "prioritised fictitious self-play: snapshot weight "
                                "(1 - win rate)^p (0 = uniform)")
    pfsp_decay: float = _f(0.98, "per iteration, past results count this much less in PFSP's "
                                 "win rates (1 = never forget)")
    # --- evaluation, checkpoints
    eval_every: int = _f(10, "iterations between evaluations (0 = only at the end)")
    eval_games: int = _f(256, "matches per opponent in a periodic evaluation (duplicate pairs "
                              "on fixed deals: the same deals at every evaluation)")
    eval_heldout: bool = _f(True, "evaluate against agents.zoo's held-out styles and the "
                                  "previous evaluation's policy too (else heuristic and random)")
    final_eval_games: int = _f(800, "matches per opponent in the final summary (duplicate "
                                    "pairs)")
    exploit_budget: float = _f(0.0, "seconds of a best response trained against the final "
                                    "policy (evaluate.py exploit) for the summary (0 = none)")
    final_average: int = _f(0, "also evaluate, in the final summary, the run's average "
                               "policy: the mean of this many of its checkpoints from the last "
                               "half of its steps (agent spec checkpoint:RUN,average=K; needs "
                               "keep_every; 0 = none)")
    eval_greedy: bool = _f(False, "evaluate the argmax policy instead of sampling")
    checkpoint_every: int = _f(10, "iterations between checkpoints (and at the end)")
    keep_every: int = _f(0, "also keep every checkpoint of an iteration divisible by this as "
                            "checkpoints/step_<global step>.pt, for curves over training such "
                            "as evaluate.py nashconv --curve (0 = only latest.pt)")

    # --- derived
    @property
    def batch_env_steps(self) -> int:
        return self.num_envs * self.num_steps

    @property
    def num_iterations(self) -> int:
        return max(1, math.ceil(self.total_steps / self.batch_env_steps))

    def sena_knobs(self) -> dict:
        """The señas knobs (issue 13) as rule-knob keywords."""
        return {"senas": self.senas, "sena_tokens": self.sena_tokens,
                "sena_catch": self.sena_catch}


class ConfigError(ValueError):
    """A config key that does not exist or a value that does not fit it."""


FIELDS = {f.name: f for f in dataclasses.fields(Config)}
HINTS = typing.get_type_hints(Config)


def _coerce(key: str, value: Any) -> Any:
    """``value`` as the type of ``key`` (strings from the command line are YAML-parsed first)."""
    hint = HINTS[key]
    optional = typing.get_origin(hint) is typing.Union and type(None) in typing.get_args(hint)
    base = [a for a in typing.get_args(hint) if a is not type(None)][0] if optional else hint

    def bad(expected: str) -> ConfigError:
        return ConfigError(f"bad value {key}={value!r}: expected {expected}")

    if value is None or (isinstance(value, str) and value.lower() in ("null", "none", "~")):
        if optional:
            return None
        raise bad(f"a value of type {getattr(base, '__name__', base)}")
    if base is bool:
        if isinstance(value, bool):
            return value
        if isinstance(value, str) and value.lower() in ("true", "false", "yes", "no"):
            return value.lower() in ("true", "yes")
        raise bad("true or false")
    if base is int:
        if isinstance(value, str):
            try:
                value = float(value.replace("_", ""))
            except ValueError:
                raise bad("an integer") from None
        if isinstance(value, float) and value.is_integer():
            return int(value)
        if isinstance(value, int) and not isinstance(value, bool):
            return value
        raise bad("an integer")
    if base is float:
        if isinstance(value, str):
            try:
                return float(value)
            except ValueError:
                raise bad("a number") from None
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return float(value)
        raise bad("a number")
    if base is str:
        if isinstance(value, (str, int, float)) and not isinstance(value, bool):
            return str(value)
        raise bad("a string")
    if base is list:  # list of positive ints ("256,128" on the command line)
        if isinstance(value, str):
            value = [v for v in value.replace("[", "").replace("]", "").split(",") if v.strip()]
        if isinstance(value, int) and not isinstance(value, bool):
            value = [value]
        try:
            out = [int(v) for v in value]
        except (TypeError, ValueError):
            raise bad("a list of positive integers such as [256, 128]") from None
        if not out or min(out) < 1:
            raise bad("a list of positive integers such as [256, 128]")
        return out
    raise bad(str(hint))  # pragma: no cover


def _check(cfg: Config) -> None:
    """Range and cross-key checks; raises :class:`ConfigError` naming the key."""
    for key, f in FIELDS.items():
        choices = f.metadata.get("choices")
        if choices and getattr(cfg, key) not in choices:
            raise ConfigError(f"bad value {key}={getattr(cfg, key)!r}: expected one of "
                              f"{list(choices)}")
    positive = ("total_steps", "num_envs", "num_steps", "minibatch_size", "update_epochs",
                "pool_size", "snapshot_every", "eval_games", "exploiter_reset_every", "magnet_every",
                "checkpoint_every", "learning_rate", "workers",
                "max_grad_norm")
    for key in positive:
        if getattr(cfg, key) <= 0:
            raise ConfigError(f"bad value {key}={getattr(cfg, key)!r}: expected a positive number")
    for key in ("threads", "eval_every", "final_eval_games", "ent_coef", "vf_coef", "clip_coef",
                "pool_weight", "heuristic_weight", "random_weight", "pfsp_power", "styles_weight",
                "pool_recent", "exploit_budget", "score_reward", "keep_every",
                "winprob_reward",
                "opponent_weight", "exploiter_weight", "time_budget", "magnet_coef",
                "envido_coef"):
        if getattr(cfg, key) < 0:
            raise ConfigError(f"bad value {key}={getattr(cfg, key)!r}: expected >= 0")
    if cfg.keep_every % cfg.checkpoint_every:
        raise ConfigError(f"bad value keep_every={cfg.keep_every!r}: expected a multiple of "
                          f"checkpoint_every={cfg.checkpoint_every} (only checkpoints are kept)")
    for key in ("gamma", "gae_lambda", "self_play_frac", "pfsp_decay"):
        if not 0.0 <= getattr(cfg, key) <= 1.0:
            raise ConfigError(f"bad value {key}={getattr(cfg, key)!r}: expected 0..1")
    weights = (cfg.pool_weight + cfg.heuristic_weight + cfg.random_weight + cfg.opponent_weight
               + cfg.styles_weight + cfg.exploiter_weight)
    if cfg.self_play_frac < 1 and weights <= 0:
        raise ConfigError("pool_weight, heuristic_weight, styles_weight, random_weight, "
                          "opponent_weight and exploiter_weight are all 0 while self_play_frac "
                          "< 1: no opponent")
    if cfg.exploiter_hunt < 0 or (cfg.exploiter_hunt
                                  and cfg.exploiter_hunt >= cfg.exploiter_reset_every):
        raise ConfigError(f"bad value exploiter_hunt={cfg.exploiter_hunt!r}: expected 0 (none) "
                          f"or fewer than exploiter_reset_every={cfg.exploiter_reset_every} "
                          f"iterations")
    if cfg.hunt_rollouts < 1 or cfg.num_steps % cfg.hunt_rollouts:
        raise ConfigError(f"bad value hunt_rollouts={cfg.hunt_rollouts!r}: expected a divisor "
                          f"of num_steps={cfg.num_steps}")
    if cfg.hunt_epochs is not None and cfg.hunt_epochs < 1:
        raise ConfigError(f"bad value hunt_epochs={cfg.hunt_epochs!r}: expected null or >= 1")
    if cfg.magnet == "init" and not (cfg.init and cfg.magnet_coef > 0):
        raise ConfigError(f"bad value magnet={cfg.magnet!r}: a fixed magnet needs a network to "
                          f"start from (init=pretrained:NAME or checkpoint:PATH) and "
                          f"magnet_coef > 0 (it is {cfg.magnet_coef!r})")
    if cfg.init is not None and not str(cfg.init).startswith(("pretrained:", "checkpoint:")):
        raise ConfigError(f"bad value init={cfg.init!r}: expected pretrained:NAME or "
                          f"checkpoint:PATH")
    if cfg.exploiter_hunt and not cfg.exploiter_weight:
        raise ConfigError(f"bad value exploiter_hunt={cfg.exploiter_hunt!r}: a hunt needs an "
                          f"exploiter (exploiter_weight > 0)")
    if cfg.random_styles < 0 or (cfg.random_styles and not cfg.styles_weight):
        raise ConfigError(f"bad value random_styles={cfg.random_styles!r}: expected 0 (none) or "
                          f"a count of styles with styles_weight > 0 (now {cfg.styles_weight})")
    if cfg.final_average < 0 or (cfg.final_average > 1 and not cfg.keep_every):
        raise ConfigError(f"bad value final_average={cfg.final_average!r}: expected 0 (none), "
                          f"1 (the last checkpoint) or K > 1 with keep_every > 0 (the run must "
                          f"keep the checkpoints it averages)")
    if cfg.final_average and not cfg.final_eval_games:
        raise ConfigError(f"bad value final_average={cfg.final_average!r} with "
                          f"final_eval_games=0: the average policy is evaluated with the final "
                          f"summary's matches")
    if cfg.opponent_weight > 0 and not cfg.opponent:
        raise ConfigError("opponent_weight > 0 needs an `opponent` spec")
    _check_backend(cfg)
    if not cfg.run_name or "/" in cfg.run_name or cfg.run_name in (".", ".."):
        raise ConfigError(f"bad value run_name={cfg.run_name!r}: expected a plain folder name")
    from truco_env import get_rules
    try:
        rules = get_rules(cfg.rules, target=cfg.target, flor=cfg.flor, pica_pica=cfg.pica_pica,
                          deck=cfg.deck, calls=cfg.calls, **cfg.sena_knobs())
        from truco_env.rules import check_senas, plays_pica_pica
        plays_pica_pica(rules, cfg.players) if cfg.players in rules.players_allowed else None
        check_senas(rules, cfg.players)
    except ValueError as exc:
        raise ConfigError(f"bad game settings (rules/target/flor/pica_pica/senas): {exc}") \
            from None
    if cfg.envido != "learned":
        from agents.solved_envido import canonical_envido, unsolvable
        try:
            cfg.envido = canonical_envido(cfg.envido)    # the run records every setting
        except ValueError as exc:
            raise ConfigError(f"bad value envido={cfg.envido!r}: {exc}") from None
        why = unsolvable(rules, cfg.players)
        if why:
            raise ConfigError(f"bad value envido={cfg.envido!r}: the solved envido does not "
                              f"fit this game: {why}")
    if cfg.truco_answers is not None:
        from agents import pretrained
        if cfg.truco_answers not in pretrained.names():
            raise ConfigError(f"bad value truco_answers={cfg.truco_answers!r}: expected a "
                              f"shipped policy's name, one of {pretrained.names()}")
        shipped = pretrained.info(cfg.truco_answers)
        mine = (cfg.players, cfg.rules, bool(rules.flor))
        theirs = (shipped["players"], shipped["rules"], bool(shipped["flor"]))
        if mine != theirs:
            raise ConfigError(f"bad value truco_answers={cfg.truco_answers!r}: "
                              f"pretrained:{cfg.truco_answers} plays (players, rules, flor) = "
                              f"{theirs}; this run {mine}")
    if cfg.truco_gate is not None:
        if cfg.truco_answers is None:
            raise ConfigError(f"bad value truco_gate={cfg.truco_gate!r}: it hands songs to the "
                              f"answerer's network; set truco_answers=NAME too")
        if not 0.0 <= cfg.truco_gate <= 1.0:
            raise ConfigError(f"bad value truco_gate={cfg.truco_gate!r}: expected a fold rate "
                              f"in [0, 1]")
    if cfg.players not in rules.players_allowed:
        raise ConfigError(f"bad value players={cfg.players}: rules {cfg.rules!r} allow "
                          f"{list(rules.players_allowed)}")
    if cfg.episode != "match" and (cfg.winprob_reward or cfg.score_reward or cfg.eval_every
                                   or cfg.final_eval_games or cfg.exploit_budget):
        raise ConfigError(f"bad value episode={cfg.episode!r} with match shaping or "
                          f"evaluations: expected winprob_reward=0, score_reward=0, "
                          f"eval_every=0, final_eval_games=0 and no exploit_budget (they "
                          f"read or play matches); small games are evaluated by "
                          f"`evaluate.py nashconv`")
    if rules.mode != "teams" and (cfg.winprob_reward or cfg.score_reward):
        raise ConfigError(f"bad value winprob_reward={cfg.winprob_reward}/score_reward="
                          f"{cfg.score_reward} for rules {cfg.rules!r}: the shaping reads team "
                          f"scores; expected 0 for the three-player modes")


def _check_backend(cfg: Config) -> None:
    """``workers`` splits ``num_envs`` evenly and belongs to Ray, which must be installed."""
    if cfg.backend == "local":
        if cfg.workers != 1:
            raise ConfigError(f"bad value workers={cfg.workers} with backend='local': the local "
                              f"backend has one worker; use backend=ray workers={cfg.workers}")
        if cfg.ray_address:
            raise ConfigError(f"bad value ray_address={cfg.ray_address!r} with "
                              f"backend='local': expected backend=ray")
        return
    if cfg.num_envs % cfg.workers:
        raise ConfigError(f"bad value workers={cfg.workers}: num_envs={cfg.num_envs} does not "
                          f"split evenly into {cfg.workers} workers' games")
    if importlib.util.find_spec("ray") is None:
        raise ConfigError("backend='ray' needs Ray, which is not installed: "
                          "pip install -e \".[ray]\"")


def make_config(values: dict[str, Any]) -> Config:
    cfg = Config()
    for key, value in values.items():
        if key not in FIELDS:
            near = [k for k in FIELDS if k.split("_")[0] == key.split("_")[0]]
            hint = f" (did you mean {', '.join(near)}?)" if near else ""
            raise ConfigError(f"unknown config key {key!r}{hint}; `python train.py --help` "
                              f"lists the keys")
        setattr(cfg, key, _coerce(key, value))
    _check(cfg)
    return cfg


def read_yaml(path: str | Path) -> dict[str, Any]:
    path = Path(path)
    if not path.is_file():
        raise ConfigError(f"config file {str(path)!r} does not exist")
    try:
        data = yaml.safe_load(path.read_text()) or {}
    except yaml.YAMLError as exc:
        raise ConfigError(f"config file {str(path)!r} is not valid YAML: {exc}") from None
    if not isinstance(data, dict):
        raise ConfigError(f"config file {str(path)!r} must be a mapping of key: value")
    return _flatten(data)


def _flatten(data: dict, prefix: str = "") -> dict[str, Any]:
    """Nested mappings become dotted keys (so a nested YAML section is an unknown key)."""
    out = {}
    for k, v in data.items():
        key = f"{prefix}{k}"
        if isinstance(v, dict):
            out.update(_flatten(v, key + "."))
        else:
            out[key] = v
    return out


def parse_overrides(items: list[str]) -> dict[str, Any]:
    out = {}
    for item in items:
        if "=" not in item:
            raise ConfigError(f"bad override {item!r}: expected key=value")
        key, text = item.split("=", 1)
        try:
            value = yaml.safe_load(text) if text else ""
        except yaml.YAMLError:
            value = text
        out[key.strip()] = value
    return out


def config_help() -> str:
    lines = ["config keys (set in the YAML file or as key=value):"]
    for key, f in FIELDS.items():
        default = f.default if f.default is not dataclasses.MISSING else f.default_factory()
        choices = f.metadata.get("choices")
        extra = f"; one of {list(choices)}" if choices else ""
        lines.append(f"  {key:<18} {f.metadata['help']} (default: {default!r}{extra})")
    return "\n".join(lines)


def parse_args(argv: list[str] | None = None) -> tuple[Config, Path | None]:
    """train.py's command line: ``(config, run folder to resume or None)``.

    The base is ``--config`` (default ``configs/default.yaml``), or on ``--resume RUN_DIR`` that
    run's ``config.yaml`` (with ``--config`` on top); ``key=value`` overrides apply last.
    """
    ap = argparse.ArgumentParser(
        prog="train.py", description="Self-play PPO for Truco.", epilog=config_help(),
        formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--config", help="YAML config (default: configs/default.yaml)")
    ap.add_argument("--resume", metavar="RUN_DIR",
                    help="continue runs/<name> from its last checkpoint (its config.yaml is the "
                         "base; overrides such as total_steps=... apply on top)")
    ap.add_argument("--device", choices=("auto", "cpu", "cuda"), help="overrides the device key")
    ap.add_argument("overrides", nargs="*", metavar="key=value", help="config overrides")
    args = ap.parse_args(argv)
    resume = None
    overrides = parse_overrides(args.overrides)
    if args.resume:
        resume = Path(args.resume)
        if not (resume / "config.yaml").is_file():
            raise ConfigError(f"--resume {args.resume!r}: no config.yaml there (expected a "
                              f"run folder such as runs/default)")
        values = read_yaml(resume / "config.yaml")
        values["run_name"], values["runs_dir"] = resume.name, str(resume.parent)
        if args.config:
            values.update(read_yaml(args.config))
    else:
        values = read_yaml(args.config or DEFAULT_CONFIG)
    values.update(overrides)
    if args.device:
        values["device"] = args.device
    cfg = make_config(values)
    if resume is not None and "run_name" in overrides:
        raise ConfigError("run_name cannot change on --resume")
    return cfg, resume


def pick_device(name: str):
    """The torch device of the ``device`` key (``auto``: CUDA where there is one)."""
    import torch
    if name == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    if name == "cuda" and not torch.cuda.is_available():
        raise ConfigError("bad value device='cuda': no CUDA device is available")
    return torch.device(name)
