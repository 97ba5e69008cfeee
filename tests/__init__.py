"""The test suite: a package, so that pytest puts the repository root on ``sys.path`` and the
tests import their helpers as ``tests.*`` (pytest's "prepend" import mode, rootdir-based)."""
