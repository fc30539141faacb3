"""Prioris: a local knowledge base for research literature."""
