"""Game transforms: card (state) and wager (action) abstractions as games (Morrill
2016, sec. 2.3 and 4.3); the ``GAME@SPEC`` game strings build them."""
