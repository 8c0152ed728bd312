"""2-NL Hold'em(k) cards: hand ranks, E[HS²] and the exact bucket abstraction
(Gibson et al. 2012, sec. 5)."""
