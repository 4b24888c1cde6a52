"""train.py's PPO update (CleanRL's clipped surrogate, value loss and entropy bonus), one
function for every network the run trains: the learner (with its privileged critic when there
is one) and the exploiter."""
from __future__ import annotations

import numpy as np

from truco_env.rules import ENVIDO_CALL_IDS

from .config import Config
from .rollout import Batch


def ppo_update(cfg: Config, model, crit, opt, prm, b: Batch, magnet=None) -> dict:
    """CleanRL's PPO update of ``model`` (and ``crit``, a separate critic reading the compact
    observation and the hidden features) on the trained transitions of ``b`` (every worker's,
    :meth:`training.rollout.Batch.concat`), with their advantages and returns; returns the last
    minibatch's statistics.

    ``magnet``: a frozen policy network; the loss then adds ``cfg.magnet_coef`` times
    KL(model || magnet) over each row's legal actions (the regularised self-play of magnetic
    mirror descent, Sokota et al. 2023, and R-NaD, Perolat et al. 2022: the policy moves by
    PPO's steps but is pulled toward a slowly refreshed copy of itself, which damps the cycles
    of plain self-play); ``losses/magnet_kl`` reports it.

    With ``envido=anchored`` the batch holds each transition's solved-envido target
    (``anchor``, ``anchor_pass``: :meth:`agents.solved_envido.EnvidoSolver.targets`) and the loss
    adds ``cfg.envido_coef`` times :func:`anchor_divergence` (``losses/envido_kl``)."""
    import torch
    import torch.nn as nn
    from truco_env.observe import COMPACT_SIZE
    device = next(model.parameters()).device
    B, ret = len(b), b.ret
    T = {k: torch.from_numpy(v).to(device) for k, v in b.data.items()}
    T_val = torch.from_numpy(b.value).to(device)
    T_adv = torch.from_numpy(b.adv).to(device)
    T_ret = torch.from_numpy(ret).to(device)
    clipfracs, approx_kl, old_approx_kl = [], torch.zeros(()), torch.zeros(())
    pg_loss = v_loss = entropy_loss = magnet_kl = envido_kl = torch.zeros(())
    n_mb = max(1, round(B / cfg.minibatch_size))
    for epoch in range(cfg.update_epochs if B else 0):
        perm = torch.randperm(B, device=device)
        for mb in perm.tensor_split(n_mb):
            obs, mask = T["obs"][mb], T["mask"][mb]   # gathered once: model, critic, magnet
            logits, shared_v = model(obs, mask)
            newvalue = (crit(obs[:, :COMPACT_SIZE], T["hid"][mb])
                        if crit is not None else shared_v)
            logprobs = torch.log_softmax(logits, 1)
            newlogp = logprobs.gather(1, T["act"][mb, None]).squeeze(1)
            entropy = -(logprobs.exp() * logprobs).sum(1)
            logratio = newlogp - T["logp"][mb]
            ratio = logratio.exp()
            with torch.no_grad():
                old_approx_kl = (-logratio).mean()
                approx_kl = ((ratio - 1) - logratio).mean()
                clipfracs.append(((ratio - 1.0).abs() > cfg.clip_coef).float().mean().item())
            mb_adv = T_adv[mb]
            if cfg.norm_adv and len(mb) > 1:
                mb_adv = (mb_adv - mb_adv.mean()) / (mb_adv.std() + 1e-8)
            pg_loss = torch.max(-mb_adv * ratio, -mb_adv * torch.clamp(
                ratio, 1 - cfg.clip_coef, 1 + cfg.clip_coef)).mean()
            if cfg.clip_vloss:
                v_clipped = T_val[mb] + torch.clamp(newvalue - T_val[mb], -cfg.clip_coef,
                                                    cfg.clip_coef)
                v_loss = 0.5 * torch.max((newvalue - T_ret[mb]) ** 2,
                                         (v_clipped - T_ret[mb]) ** 2).mean()
            else:
                v_loss = 0.5 * ((newvalue - T_ret[mb]) ** 2).mean()
            entropy_loss = entropy.mean()
            loss = pg_loss - cfg.ent_coef * entropy_loss + cfg.vf_coef * v_loss
            if magnet is not None:
                magnet_kl = magnet_divergence(logprobs, magnet, obs, mask)
                loss = loss + cfg.magnet_coef * magnet_kl
            if "anchor" in T:
                envido_kl = anchor_divergence(logprobs, T["anchor"][mb], T["anchor_pass"][mb])
                loss = loss + cfg.envido_coef * envido_kl
            opt.zero_grad()
            loss.backward()
            nn.utils.clip_grad_norm_(prm, cfg.max_grad_norm)
            opt.step()
        if cfg.target_kl is not None and approx_kl > cfg.target_kl:
            break
    var_y = np.var(ret) if B else 0.0
    return {"losses/value_loss": v_loss.item(), "losses/policy_loss": pg_loss.item(),
            "losses/entropy": entropy_loss.item(), "losses/magnet_kl": magnet_kl.item(),
            "losses/envido_kl": envido_kl.item(),
            "losses/old_approx_kl": old_approx_kl.item(),
            "losses/approx_kl": approx_kl.item(),
            "losses/clipfrac": float(np.mean(clipfracs)) if clipfracs else float("nan"),
            "losses/explained_variance": float("nan") if var_y == 0 else
            float(1 - np.var(ret - b.value) / var_y)}


def magnet_divergence(logprobs, magnet, obs, mask):
    """Mean over rows of KL(pi || magnet), ``logprobs`` the policy's log-probabilities (illegal
    actions at about -1e9, so their probabilities are 0 and they add nothing); the magnet's
    are computed here without gradient."""
    import torch
    with torch.no_grad():
        ref = torch.log_softmax(magnet(obs, mask)[0], 1)
    p = logprobs.exp()
    return (p * (logprobs - ref)).masked_fill(~mask, 0.0).sum(1).mean()


def anchor_divergence(logprobs, target, pass_mass):
    """Mean over the rows at an envido decision of KL(solution || policy): over the envido
    calls and answers, plus an opening's "pass" (the policy's mass on every other action
    against the solution's ``pass_mass``).  Rows without a target add nothing."""
    import torch
    p = logprobs.exp()
    active = (target.sum(1) + pass_mass) > 0
    if not bool(active.any()):
        return torch.zeros((), device=logprobs.device)
    explicit = target > 0
    lp = logprobs.clamp_min(-30.0)
    kl = (target * (torch.log(target.clamp_min(1e-12)) - lp)).masked_fill(~explicit, 0.0).sum(1)
    # an opening's explicit actions are the three envido calls (all legal there)
    p_pass = (1.0 - p[:, list(ENVIDO_CALL_IDS)].sum(1)).clamp_min(1e-9)
    has_pass = pass_mass > 0
    kl = kl + torch.where(has_pass, pass_mass * (torch.log(pass_mass.clamp_min(1e-12))
                                                 - torch.log(p_pass)), torch.zeros_like(kl))
    return kl[active].mean()
