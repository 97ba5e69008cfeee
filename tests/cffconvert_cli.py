# /// script
# requires-python = ">=3.10"
# dependencies = ["cffconvert==2.0.0"]
# ///
"""cffconvert, the Citation File Format's own validator, in an environment of its own.

It pins jsonschema<4, which the project's environment cannot hold beside its own, so it runs
as a script from its lock file (tests/cffconvert_cli.py.lock, made by
``uv lock --script tests/cffconvert_cli.py``)::

    uv run --frozen --script tests/cffconvert_cli.py --validate -i CITATION.cff
"""

from cffconvert.cli.cli import cli

if __name__ == "__main__":
    cli()
