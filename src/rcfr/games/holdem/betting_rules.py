"""2-NL Hold'em(k)'s betting constants (Gibson et al. 2012, sec. 5): the actions fold and call
(a raise is the amount raised to), the blinds, and the rounds.  Shared by the game
(:mod:`rcfr.games.nl_holdem2`) and its public-tree kernels
(:mod:`rcfr.games.holdem.betting_tree`) without either importing the other."""

FOLD, CALL = 0, 1
SMALL_BLIND, BIG_BLIND = 1, 2
PREFLOP, FLOP, SHOWDOWN = 0, 1, 2
