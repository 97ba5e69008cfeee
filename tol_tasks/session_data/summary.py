"""A short plain-text summary of the sessions in a folder (``python -m tol_tasks.session_data.summary DIR``).

This is a quick look for the demo; the scores themselves come from ``analysis``.
"""

from __future__ import annotations

import sys
from pathlib import Path

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
    onset = {}
    for r in data.rows:
        if r["event"] == "trial_onset":
            onset[r["trial"]] = r
        if r["event"] == "trial_end":
            o = onset.get(r["trial"], {})
            lines.append(
                f"  trial {r['trial']:>2} {r['problem_id']:<12} {o.get('state', '')} -> "
                f"{o.get('goal', '')}: {r['reason']} in {r['moves']} moves, "
                f"{float(r['trial_time']):.1f} s"
            )
    lines.extend(f"  warning: {w}" for w in data.warnings)
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    print(summarize(Path(args[0] if args else "data")))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
