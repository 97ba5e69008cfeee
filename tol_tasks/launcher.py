"""A session started from PsychoPy's Runner, without a terminal: ``tol-run`` behind a dialog.

PsychoPy Standalone installs tol-tasks into its user packages (its plugin and package
manager) but puts no ``tol-run`` on any PATH a lab uses. The launcher script
(``docs/launcher/tol_launcher.py``, a file a lab saves beside its protocols and opens in
PsychoPy's Runner) calls :func:`launch`: PsychoPy's dialog asks for the protocol (the
protocol files beside the script, then the bundled ones), the participant and the session,
then the protocol's own participant fields if it declares any, and the session runs
exactly as ``tol-run PROTOCOL --participant P --session S --output FOLDER`` runs it (its
messages, its checks, its exit status), into ``data/`` beside the script.
"""

from __future__ import annotations

import os
from pathlib import Path

from tol_tasks.cli import EXIT_OK, run_main
from tol_tasks.errors import TolTasksError
from tol_tasks.protocol_format.load import bundled_protocols, load_protocol

#: The dialog's title, and the folder (beside the launcher) the sessions go to.
TITLE, DATA = "tol-tasks: a session", "data"


def protocol_choices(folder: Path) -> list[str]:
    """The protocol files in ``folder`` (by file name), then the bundled protocols' names."""
    own = sorted(p.name for p in folder.glob("*.y*ml") if p.suffix in (".yaml", ".yml"))
    return [*own, *sorted(bundled_protocols())]


def _ask(fields: dict, title: str) -> dict | None:
    # PsychoPy's dialog (the runner's), imported only when shown: this module imports
    # without PsychoPy.
    from tol_tasks.runner.dialog import ask

    return ask(fields, title)


def launch(script: str | os.PathLike, *tol_run_options: str) -> int:
    """Ask for a protocol, participant and session; run the session as ``tol-run`` does.

    Parameters
    ----------
    script : path-like
        The launcher script (``__file__``): its folder holds the lab's protocol files and
        receives ``data/``.
    *tol_run_options : str
        More ``tol-run`` options, e.g. ``"--windowed"`` or ``"--language", "fr"``.

    Returns
    -------
    int
        ``tol-run``'s exit status (0: the session completed, or the dialog was cancelled).
    """
    folder = Path(script).resolve().parent
    answer = _ask({"protocol": protocol_choices(folder), "participant": "", "session": "1"},
                  TITLE)  # fmt: skip
    if answer is None:
        print("tol-tasks launcher: cancelled; nothing was written.")
        return EXIT_OK
    chosen = folder / answer["protocol"]
    protocol = str(chosen) if chosen.is_file() else answer["protocol"]
    argv = [protocol, "--participant", answer["participant"], "--session", answer["session"],
            "--output", str(folder / DATA), *tol_run_options]  # fmt: skip
    try:
        extra = dict(load_protocol(protocol).model.participant_fields)
    except TolTasksError:
        extra = {}  # tol-run says what is wrong with the file, and how to fix it
    if extra:
        more = _ask(extra, f"tol-tasks: {answer['participant']}")
        if more is None:
            print("tol-tasks launcher: cancelled; nothing was written.")
            return EXIT_OK
        for name, value in more.items():
            argv += ["--field", f"{name}={value}"]
    return run_main(argv)
