"""Feature matrices over a player's sequences (or information sets) for regret regressors,
from a registry of feature providers.

Built in (any game unless said otherwise):

* ``onehot``: one column per sequence, so a regressor can be tabular.
* ``hashing:K``: D'Orazio et al. 2019, sec. 5: tug-of-war hashing of the information state
  into ``K`` partitions of 10 buckets (information-set features, one linear model per action);
  per sequence it is followed by a one-hot of the action.
* ``thesis`` (leduc, nl_one_card: registered for those games, and their default): Morrill
  2016, sec. 4.1, as written: expected hand strength, board rank (0 before the flop), and for
  every betting action in the sequence, most recent first and zero-padded: "player 1 is next
  to act" and "player 2 is next to act" (the player acting at that information set), pot
  after the action, the actor's remaining stack, fold / call / non-all-in wager / all-in
  indicators, and the wager in chips, as a fraction of the pot after matching the opponent's
  current contribution and as a fraction of the actor's remaining stack.
* ``thesis-relative`` (the same games): the earlier reading: actor-is-me /
  actor-is-the-opponent indicators and the wager as a fraction of the pot before the action.
* ``infostate`` (kuhn, leduc, ``openspiel:`` games): OpenSpiel's information-state tensor
  (player, private card, board card and betting bits; :mod:`rcfr.features.infostate`), the
  observation NFSP's networks read.
* ``waugh`` (the same games): limit-poker betting features for recursive partitioning (thesis
  footnote 2, after Waugh et al. 2015): the card features, whether the board pairs the
  private card, and a fixed set of counts over the betting (:func:`_waugh_features`).
* ``holdem`` (``nl_holdem2``, either form): the bucket's E[HS²], the buckets, the round, the
  pot, the chips to call, the pot odds, the chips behind, raises by round and by player and the
  last raise, read off the information-state string (:mod:`rcfr.features.holdem`); per
  sequence followed by the action (fold, call, raise, chips raised to).

A game (or a user) adds its own with :func:`register_features` (a name usable as
``--features NAME``) and :func:`register_default_features`; ``features=`` also takes a
callable ``f(tree, player) -> matrix`` directly.  :class:`FeatureRows` builds rows lazily, only
for the sequences asked for (those a sampled pass touched), so a model can train on
minibatches of a game too large for a dense matrix.
"""

from . import generic as _generic  # noqa: F401 (registers onehot and hashing)
from . import holdem as _holdem  # noqa: F401 (registers holdem)
from . import infostate as _infostate  # noqa: F401 (registers infostate)
from . import poker as _poker  # noqa: F401 (registers the thesis's poker features)
from .generic import HASH_BUCKETS, ONEHOT_LIMIT, tree_equivalent_columns
from .registry import (
    FeatureProvider,
    FeatureRows,
    default_features,
    feature_provider,
    feature_sets,
    infoset_features,
    parse_features,
    register_default_features,
    register_features,
    sequence_features,
)

__all__ = ["HASH_BUCKETS", "ONEHOT_LIMIT", "FeatureProvider", "FeatureRows", "default_features",
           "feature_provider", "feature_sets", "infoset_features", "parse_features",
           "register_default_features", "register_features", "sequence_features",
           "tree_equivalent_columns"]
