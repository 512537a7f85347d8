"""Ingest: TREC qrels and run files, batches of them, and data frames, validated into a warehouse."""
