"""Evaluation: the measure registry, its settings, the evaluator, user measures, one-shot files, significance."""
