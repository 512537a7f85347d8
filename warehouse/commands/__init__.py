"""The commands: the `irw` command, the trec_eval drop-in, the demo and its sample data."""
