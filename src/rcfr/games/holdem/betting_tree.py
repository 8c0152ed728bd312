"""The numba kernels behind :func:`rcfr.games.nl_holdem2.public_nodes`: 2-NL Hold'em(k)'s public
tree in one breadth-first pass over the betting states, and its terminals' rules.  A module of
their own so that loading the game (``rcfr --help`` lists games) does not load numba."""
import numpy as np
from numba import njit

from ..public import FOLD_RULE, KIND_CHANCE, KIND_TERMINAL, MATRIX_RULE
from .betting_rules import BIG_BLIND, CALL, FLOP, FOLD, SHOWDOWN, SMALL_BLIND


@njit(cache=True)
def betting_tree(stack, kind, parent, action, child_start, num_actions, ctx, spent, inc,
                  small):
    """Breadth-first over the public states, as :meth:`Betting.child` and
    :class:`NLHoldem2PublicState` move (``ctx``: flop buckets dealt, 0 to 2); returns the
    nodes made."""
    rnd, acted, player, folder = small[0], small[1], small[2], small[3]
    spent[0, 0], spent[1, 0], inc[0] = SMALL_BLIND, BIG_BLIND, BIG_BLIND
    rnd[0] = acted[0] = player[0] = 0
    folder[0] = -1
    ctx[0] = 0
    parent[0] = action[0] = -1
    made = 1
    N = kind.shape[0]
    for i in range(N):
        if i >= made:  # pragma: no cover (a tree of fewer nodes than counted)
            return made
        child_start[i] = made
        num_actions[i] = 0
        p = player[i]
        if folder[i] >= 0:
            kind[i] = KIND_TERMINAL
            continue
        if rnd[i] >= FLOP and ctx[i] < 2:  # a flop bucket dealt: one outcome, observed
            kind[i] = KIND_CHANCE
            if made >= N:  # pragma: no cover
                return made + 1
            spent[0, made], spent[1, made], inc[made] = spent[0, i], spent[1, i], inc[i]
            rnd[made], acted[made], player[made], folder[made] = rnd[i], acted[i], p, folder[i]
            ctx[made] = ctx[i] + 1
            parent[made], action[made] = i, 0
            made += 1
            continue
        if rnd[i] == SHOWDOWN or (spent[0, i] == stack and spent[1, i] == stack):
            kind[i] = KIND_TERMINAL
            continue
        kind[i] = p
        mine, other = np.int64(spent[p, i]), np.int64(spent[1 - p, i])
        lowest = stack + 1
        if other < stack:
            lowest = min(other + max(np.int64(inc[i]), BIG_BLIND), stack)
        first = FOLD if other > mine else CALL
        num_actions[i] = (CALL + 1 - first) + (stack + 1 - lowest)
        if made + num_actions[i] > N:  # pragma: no cover
            return made + num_actions[i]
        for a in range(first, stack + 1):
            if a > CALL and a < lowest:
                continue
            c = made
            made += 1
            parent[c], action[c], ctx[c] = i, a, ctx[i]
            rnd[c], inc[c], folder[c] = rnd[i], inc[i], folder[i]
            acted[c], player[c] = acted[i] + 1, 1 - p
            spent[0, c], spent[1, c] = spent[0, i], spent[1, i]
            if a == FOLD:
                folder[c] = p
            elif a == CALL:
                spent[p, c] = other
                if acted[i] >= 1:  # the round closes; the big blind acts first on the flop
                    rnd[c] = rnd[i] + 1
                    inc[c], acted[c], player[c] = 0, 0, 1
            else:
                inc[c] = a - other
                spent[p, c] = a
    child_start[N] = made
    return made


@njit(cache=True)
def terminal_rules(kind, spent, small, term_rule, term_value):
    """:meth:`NLHoldem2PublicState.terminal` at each terminal, in node order."""
    folder = small[3]
    z = 0
    for i in range(kind.shape[0]):
        if kind[i] != KIND_TERMINAL:
            continue
        f = folder[i]
        if f >= 0:  # the folder loses her chips
            term_rule[z] = FOLD_RULE
            lost = float(spent[f, i])
            term_value[z] = -lost if f == 0 else lost
        else:
            term_rule[z] = MATRIX_RULE
            term_value[z] = float(spent[0, i])
        z += 1
