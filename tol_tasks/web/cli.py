"""``tol-web``: build a protocol as a static web experiment.

Thin: parses the command line and calls :func:`tol_tasks.web.build.build_experiment`.
A :class:`~tol_tasks.errors.TolTasksError` is printed as it is (file, line,
field, value and fix) and the command exits with status 2; never a traceback.
"""

from __future__ import annotations

import argparse
import shutil
import sys
from collections.abc import Sequence
from pathlib import Path

import tol_tasks.blas  # noqa: F401 - first: before anything imports numpy
from tol_tasks import __version__
from tol_tasks.errors import TolTasksError, path_errors_said, quiet_on_closed_pipe

from .build import PLUGIN_BUNDLE, WebSettings, build_experiment, bundle_path, setting_fields
from .extract import extract_sessions
from .server import serve_fields

EXIT_OK, EXIT_USAGE = 0, 2


def _parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(
        prog="tol-web",
        description="Put a tol-tasks protocol online: a jsPsych experiment folder, and a "
        "collection server for its data.",
    )
    ap.add_argument("--version", action="version", version=f"tol-tasks {__version__}")
    sub = ap.add_subparsers(dest="command", required=True, metavar="COMMAND")
    build = sub.add_parser(
        "build",
        help="write a protocol's experiment folder (index.html, tol-tasks.js, protocol.json)",
        description="Write a static experiment folder that runs the protocol in a browser: "
        "from any web server, JATOS, Pavlovia or Cognition.run (docs/web.md).",
    )
    build.add_argument("protocol", metavar="PROTOCOL", help="a protocol file or bundled name")
    build.add_argument("--output", "-o", required=True, type=Path, metavar="DIR",
                       help="the folder to write (new or empty)")  # fmt: skip
    build.add_argument("--force", action="store_true",
                       help="write into a folder that already holds files")  # fmt: skip
    for f in setting_fields():
        flag = "--" + f.name.replace("_", "-")
        if f.type in (bool, "bool"):
            build.add_argument(flag, action="store_true", help=f.metadata["help"])
        else:
            kind = int if f.type in (int, "int") else str
            build.add_argument(flag, type=kind, default=f.default, metavar="VALUE",
                               help=f"{f.metadata['help']} (default: {f.default})")  # fmt: skip
    plugin = sub.add_parser(
        "plugin",
        help="copy the jsPsych plugin alone (plugin-tower.js), for your own jsPsych page",
    )
    plugin.add_argument("--output", "-o", required=True, type=Path, metavar="DIR")
    extract = sub.add_parser(
        "extract",
        help="write the event logs and sidecars kept in a jsPsych data file (CSV or JSON), "
        "e.g. from Cognition.run, Pavlovia or JATOS",
    )
    extract.add_argument("files", nargs="+", type=Path, metavar="FILE")
    extract.add_argument("--output", "-o", required=True, type=Path, metavar="DIR")
    serve = sub.add_parser(
        "serve",
        help="run a collection server: serve built studies and store their data as it comes",
        description="Serve studies built with --server and store each session's log in a data "
        "folder that tol-score reads (or in PostgreSQL). docs/online.md: proxy, TLS, limits.",
    )
    serve.add_argument("studies", nargs="+", type=Path, metavar="STUDY",
                       help="a study folder (tol-web build ... --server), or a folder of them")  # fmt: skip
    serve.add_argument("--data", type=Path, metavar="DIR",
                       help="the data folder (one folder per study inside); required without "
                       "--database")  # fmt: skip
    serve.add_argument("--database", metavar="URL",
                       help="store in PostgreSQL instead (postgresql://USER:PASSWORD@HOST/DB); "
                       "tol-web export writes the data folder")  # fmt: skip
    for f in serve_fields():
        flag = "--" + f.name.replace("_", "-")
        if f.metadata.get("many"):
            serve.add_argument(flag, action="append", default=[], metavar="VALUE",
                               help=f.metadata["help"])  # fmt: skip
        else:
            kind = {"int": int, "float": float}.get(str(f.type), str)
            serve.add_argument(flag, type=kind, default=f.default, metavar="VALUE",
                               help=f"{f.metadata['help']} (default: {f.default})")  # fmt: skip
    export = sub.add_parser(
        "export",
        help="write the sessions kept in PostgreSQL into a data folder (for tol-score)",
    )
    export.add_argument("--database", required=True, metavar="URL")
    export.add_argument("--data", required=True, type=Path, metavar="DIR")
    return ap


def _serve(args) -> int:
    from .server import ServeSettings, run
    from .studies import find_studies

    if (args.data is None) == (args.database is None):
        print("tol-web: serve needs one place to store: --data DIR (a data folder) or --database "
              "URL (PostgreSQL).", file=sys.stderr)  # fmt: skip
        return EXIT_USAGE
    studies = find_studies(args.studies)
    if args.database:
        from .pgstore import PostgresStorage

        storage = PostgresStorage(args.database)
    else:
        from tol_tasks.session_data.collect import FolderStorage

        storage = FolderStorage(args.data)
    values = {f.name: getattr(args, f.name) for f in serve_fields()}
    values = {k: tuple(v) if isinstance(v, list) else v for k, v in values.items()}
    settings = ServeSettings(**values)
    names = ", ".join(sorted(studies))
    print(f"tol-web: serving {len(studies)} stud{'y' if len(studies) == 1 else 'ies'} ({names}) "
          f"on http://{settings.host}:{settings.port}/, storing in "
          f"{(args.database and 'PostgreSQL') or args.data}", file=sys.stderr, flush=True)  # fmt: skip
    run(studies, storage, settings)
    return EXIT_OK


@quiet_on_closed_pipe
@path_errors_said("tol-web")
def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        if args.command == "build":
            settings = WebSettings(**{f.name: getattr(args, f.name) for f in setting_fields()})
            result = build_experiment(args.protocol, args.output, settings, force=args.force)
            print(result.summary())
        elif args.command == "serve":
            return _serve(args)
        elif args.command == "export":
            from .pgstore import export_database

            written = export_database(args.database, args.data)
            print(f"tol-web: {len(written)} session(s) exported to {args.data}/")
        elif args.command == "extract":
            for f in args.files:
                for path in extract_sessions(f, args.output):
                    print(f"tol-web: {path}")
        else:
            source = bundle_path(PLUGIN_BUNDLE)
            args.output.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(source, args.output / PLUGIN_BUNDLE)
            print(f"tol-web: {args.output / PLUGIN_BUNDLE} written (see docs/web.md).")
    except TolTasksError as exc:
        print(f"tol-web: {exc}", file=sys.stderr)
        return EXIT_USAGE
    return EXIT_OK


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
