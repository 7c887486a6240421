"""The ``coreml-lint`` command: the same program as the Rust binary, run in process."""

from __future__ import annotations

import signal
import sys


def main() -> int:
    """Runs ``coreml-lint`` with ``sys.argv`` and returns its exit code."""
    from coreml_lint._native import run_cli

    # Ctrl-C ends the command as it ends the binary, instead of waiting for the Rust code to return.
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    sys.stdout.flush()
    sys.stderr.flush()
    return run_cli(["coreml-lint", *sys.argv[1:]])


if __name__ == "__main__":
    sys.exit(main())
