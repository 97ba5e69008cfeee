"""A short plain-text summary of the sessions in a folder (``python -m tol_tasks.session_data.summary DIR``).

This is a quick look for the demo; the scores themselves come from ``tol_analysis``.
"""

from __future__ import annotations

import sys
from pathlib import Path

from .attempts import PROBLEM, log_attempts
from .eventlog import EventLogError, read_event_log


def summarize(folder: Path) -> str:
    """One line per trial of the newest session log in ``folder``."""
    logs = sorted(Path(folder).glob("*.csv"), key=lambda p: p.stat().st_mtime)
    if not logs:
        return f"no event logs in {folder}"
    log = logs[-1]
    try:
        data = read_event_log(log)
    except EventLogError as exc:
        return str(exc)
    lines = [f"{log} ({len(data.rows)} events)"]
    try:
        attempts = log_attempts(data)
    except EventLogError as exc:
        return str(exc)
    rows = data.rows
    for a in attempts:
        if a.kind != PROBLEM or not a.complete:
            continue
        onset, end = rows[a.onset], rows[a.end]
        lines.append(
            f"  trial {a.trial:>2} {a.problem_id:<12} {onset['state']} -> {onset['goal']}: "
            f"{a.outcome} in {end['moves']} moves, {float(end['trial_time']):.1f} s"
        )
    lines.extend(f"  warning: {w}" for w in data.warnings)
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    print(summarize(Path(args[0] if args else "data")))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
