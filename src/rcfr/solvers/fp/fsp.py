"""Fictitious self-play (FSP; Heinrich, Lanctot & Silver 2015, Alg. 1) with tabular learners:
XFP's update carried out from sampled experience.

Each iteration ``k`` generates data by playing ``fsp_episodes`` games of the mixture
``sigma_k = (1 - alpha_{k+1}) pi_k + alpha_{k+1} beta_{k+1}`` (GENERATEDATA): each player, for
the whole episode, follows its best response ``beta`` with probability ``alpha`` and its
average strategy ``pi`` otherwise, which is the realization-weighted mixture of XFP's update
(their Theorem 6).  Then, for each player:

* the supervised learner (SUPERVISEDLEARNING; tabular: action counts) fits the new average
  strategy ``pi_{k+1}`` to the player's own actions in that data (information sets the data
  never reached keep their old strategy), so ``pi_{k+1} -> XFP's pi_{k+1}`` as the data
  grows;
* the best-response learner (REINFORCEMENTLEARNING; tabular and exact: a count model of the
  opponent's play in the same data, answered by the exact sequence-form best response) gives
  ``beta_{k+2}``, the best response to the opponent's ``sigma``, which is XFP's
  ``beta_{k+2}`` against ``pi_{k+1}`` in the limit of full data.

Both memories hold one iteration's data (the tabular learners need no more).  ``step`` as
XFP's (:func:`~rcfr.solvers.fp.stepped.parse_step`); the players learn from the same games at
once (``alternating`` is accepted for the common interface and has no effect).  Games are
sampled in batches on the history form (:class:`~rcfr.solvers.fp.batched_games.BatchedGames`).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ...core import kernels as K
from ...core.budget import check_allocations
from ...core.checks import whole_number
from ...forms.base import Form
from ...policy import TabularPolicy
from ..policy_driver import PolicyDriver
from .batched_games import BatchedGames, sample_index
from .stepped import checked, parse_step, step_size
from .xfp import best_response_into

DEFAULT_EPISODES = 1000


class FSPSolver(PolicyDriver):
    """Sampled fictitious self-play with tabular learners (module doc)."""

    name = "fsp"

    def __init__(self, game: Form | Any, *, fsp_episodes: int | None = None,
                 step: str | None = None, alternating: bool = True,
                 seed: int | None = None) -> None:
        super().__init__(game, seed=seed)
        self.fsp_episodes = fsp_episodes
        self.step = step
        self.alternating = alternating

    def _init_state(self) -> None:
        self.schedule_ = parse_step(self.step)
        self.episodes_ = (DEFAULT_EPISODES if self.fsp_episodes is None else
                          whole_number(self.fsp_episodes, "fsp_episodes"))  # (0 is refused)
        t = self.tree
        # each game in flight: its node, modes, and the rows of its draws (widest action)
        width = int(t.infoset_num_actions.max()) if t.num_infosets else 1
        check_allocations(f"{self.name} on {t.game}", {
            "games (--fsp-episodes)": float(self.episodes_) * (48 + 24 * width),
            "strategy tables": 8.0 * 5 * t.num_sequences})
        self.rng_ = np.random.default_rng(int(self.seed or 0))
        self.games_ = BatchedGames(t, self.episodes_, self.rng_)
        self.avg_ = TabularPolicy.uniform(t).probs.copy()
        self.br_ = self.avg_.copy()
        for p in (0, 1):  # beta_2: the best response to the first average
            best_response_into(t, p, self.avg_, self.br_)

    def _config(self) -> dict[str, Any]:
        return {"step": "harmonic" if self.step is None else str(self.step),
                "fsp_episodes": self.episodes_}

    def generate_counts(self, alpha: float) -> np.ndarray:
        """Play ``fsp_episodes`` games of ``sigma`` (module doc); each sequence's count of
        being played."""
        g, t = self.games_, self.tree
        g.reset()
        follows_br = self.rng_.random((g.n, 2)) < alpha
        counts = np.zeros(t.num_sequences)
        while True:
            live = np.flatnonzero(~g.terminal())
            if live.size == 0:
                return counts
            infos = g.infosets(live)
            player = g.player[live]
            use_br = follows_br[live, player]
            rows = np.where(use_br[:, None], g.policy_rows(self.br_, infos),
                            g.policy_rows(self.avg_, infos))
            actions = sample_index(rows, self.rng_)
            np.add.at(counts, g.seq_start[infos] + actions, 1.0)
            g.step(live, actions)

    def _iterate(self) -> None:
        t = self.tree
        self.iteration += 1
        alpha = step_size(self.schedule_, self.iteration)
        counts = self.generate_counts(alpha)
        self.nodes_visited += int(self.episodes_)  # sampled histories: one per episode
        new = np.empty(t.num_sequences)
        K.normalize(counts, 0, t.num_infosets, t.infoset_seq_start, t.infoset_num_actions, new)
        seen = np.add.reduceat(counts, t.infoset_seq_start) > 0
        keep = ~np.repeat(seen, t.infoset_num_actions)
        new[keep] = self.avg_[keep]
        self.avg_ = new  # SUPERVISEDLEARNING: pi_{k+1} from the counts
        model = new  # the opponents' play in the same data (its count model)
        for p in (0, 1):  # REINFORCEMENTLEARNING: beta_{k+2}, exact against the model
            best_response_into(t, p, model, self.br_)

    def _average(self) -> np.ndarray:
        return self.avg_

    def _current(self) -> np.ndarray:
        return self.br_

    def _state(self) -> dict[str, np.ndarray]:
        state = self.rng_.bit_generator.state
        return {"average": self.avg_, "best_response": self.br_,
                "rng": np.array([int(state["state"]["state"]), int(state["state"]["inc"]),
                                 int(state["has_uint32"]), int(state["uinteger"])],
                                dtype=object).astype(str)}

    def _load_state(self, arrays: dict[str, np.ndarray], meta: dict[str, Any]) -> None:
        S = self.tree.num_sequences
        avg, br = checked(arrays["average"], (S,)), checked(arrays["best_response"], (S,))
        TabularPolicy(self.tree, avg)
        s, inc, has, uint = (int(x) for x in arrays["rng"])
        self.rng_.bit_generator.state = {"bit_generator": "PCG64",
                                         "state": {"state": s, "inc": inc},
                                         "has_uint32": has, "uinteger": uint}
        self.avg_, self.br_ = avg, br
