"""The store: what a warehouse holds, ad-hoc SQL over it, and moving its rows out (copy, export)."""
