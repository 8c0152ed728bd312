"""The history form: every history a node (any game)."""
