"""Interoperability with other libraries (OpenSpiel)."""
