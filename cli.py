"""The `irw` command, runnable from a checkout as `python cli.py ...`."""
from warehouse.__main__ import main

if __name__ == "__main__":
    main()
