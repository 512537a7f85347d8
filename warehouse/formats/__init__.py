"""Formats: one value as text, tables, the formats irw prints, escaping of user text, files written whole."""
