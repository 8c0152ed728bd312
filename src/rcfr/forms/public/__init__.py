"""The public form: public states x private-state vectors (poker, dice)."""
