"""Session reports for clinicians and a study overview for researchers (HTML, print to A4/Letter).

Built only from the scored tables and the sidecars (:class:`tol_analysis.score.scores.Scores`):
every number shown is read from ``sessions.csv`` and ``trials.csv`` as
:func:`tol_analysis.score.scores.score_sessions` computed them, never computed again.
Which measures are the headline, their names and what they mean in plain words
come from the column registry (:mod:`tol_analysis.columns`: ``headline``,
``label``, ``plain``); every number on a page has its meaning on the same page.
Each file is self-contained (styles inline, figures inline as SVG, no
network). The templates are ``analysis/tol_analysis/report/templates/session.html.j2``
and ``index.html.j2``; the other texts, per language, the ``report`` domain of
:mod:`tol_tasks.texts` (``tol_tasks/texts/<language>.yaml``, beside the participant's texts).

Install with ``pip install "tol-tasks[report]"`` (Jinja2; the figures need
matplotlib, ``[plots]``).
"""

from __future__ import annotations

import io
import math
import re
from dataclasses import asdict
from pathlib import Path

import pandas as pd

from tol_analysis.cells import shown_text
from tol_analysis.columns import (
    BOOLEAN,
    FLOAT,
    INTEGER,
    SESSION_LEVELS,
    SESSIONS,
    TRIALS,
    UNRECORDED,
    Column,
    level_name,
)
from tol_analysis.read.sidecar import recorded_by
from tol_analysis.score.scores import Scores
from tol_tasks import __version__, texts
from tol_tasks.session_data.quality import attention_losses
from tol_tasks.session_data.sidecar import Sidecar

TEMPLATES = Path(__file__).parent / "templates"
_LEVEL = re.compile(r"^min(\d+)_problems$")
#: The language of the reports when none is chosen.
DEFAULT_LANGUAGE = texts.FALLBACK
#: Problems drawn on the state graph in a session report (the rest are in the tables).
MAX_PATHS = 12
#: Panels per row of a session report's figures.
PANELS_PER_ROW = 6
#: Problems in the distance figure of a session report.
MAX_DISTANCE_PANELS = 16
#: A session is flagged when more than this share of its frames was dropped.
DROPPED_FRAMES_FLAG = 0.05
#: The columns of a session report's problem table (trials.csv), in order; what each
#: means comes from the registry.
PROBLEM_COLUMNS = ("problem_id", "start", "min_moves", "moves", "solved", "planning_time",
                   "total_time", "rule_violations")  # fmt: skip


def headline_columns() -> list[Column]:
    """The headline measures of ``sessions.csv`` (the registry's ``headline`` flag), in order."""
    return [c for c in SESSIONS if c.headline]


def jinja_environment():
    """The reports' Jinja2 environment on ``templates/``; ImportError with the install hint
    when Jinja2 (the ``report`` extra) is missing."""
    try:
        import jinja2
    except ImportError as exc:
        raise ImportError(
            f"tol-score --report needs Jinja2 ({exc}). Install it with: "
            'pip install "tol-tasks[report]"  (or: uv sync --all-extras)'
        ) from exc
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(TEMPLATES),
        autoescape=jinja2.select_autoescape(["html", "j2"]),
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters["cell"] = shown_text
    return env


def languages() -> list[str]:
    """The languages the reports can be written in (those whose texts file has a ``report``
    domain, :mod:`tol_tasks.texts`)."""
    return list(texts.languages("report"))


def messages(language: str = DEFAULT_LANGUAGE) -> dict:
    """The report texts in ``language``.

    Raises
    ------
    ValueError
        An unknown language, naming the ones there are.
    """
    own = texts.domain(language, "report")
    if own is None:
        raise ValueError(
            f"--language {language!r}: no report texts in that language. Suggested fix: "
            f"choose one of {', '.join(languages())}, or add a report section to "
            f"tol_tasks/texts/{language}.yaml (copy the one of en.yaml and translate it)."
        )
    return {**texts.domain(DEFAULT_LANGUAGE, "report"), **own, "lang": language}


def column_text(column: Column, t: dict) -> dict:
    """A column's name and plain-words meaning in the report's language (the registry's in English)."""
    own = t.get("columns", {}).get(column.name, {})
    return {"key": column.name, "label": own.get("label", column.label),
            "plain": own.get("plain", column.plain)}  # fmt: skip


def _empty(value) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value)) or value is pd.NA


def _show(value, kind: str = FLOAT, t: dict | None = None) -> str:
    """A cell: integers as they are, floats to 2 decimals, booleans in words, missing as a dash."""
    if _empty(value):
        return "–"
    if kind == BOOLEAN or isinstance(value, bool):
        return (t or {}).get("word_yes" if value else "word_no", str(bool(value)))
    if kind == INTEGER or isinstance(value, int):
        return str(int(value))
    if isinstance(value, float):
        return f"{value:.2f}"
    return str(value)


def _svg(fig, tight: bool = True) -> str:
    """A matplotlib figure as an inline ``<svg>`` element (text drawn as paths: no fonts);
    ``tight``: cropped to what is drawn (a second drawing pass)."""
    import matplotlib

    buf = io.StringIO()
    with matplotlib.rc_context({"svg.fonttype": "path", "svg.hashsalt": "tol-tasks"}):
        fig.savefig(buf, format="svg", bbox_inches="tight" if tight else None,
                    metadata={"Date": None})  # fmt: skip
    text = buf.getvalue()
    from markupsafe import Markup  # Jinja2's own; the SVG is ours, not user text

    return Markup(text[text.index("<svg") :])


def _timing_text(method: str | None, t: dict) -> str | None:
    if not method:
        return None
    return t["timing_polled"] if method == "polled" else t["timing_arrival"].format(method=method)


def _technical(meta: Sidecar | None, trials: pd.DataFrame, conventions, t: dict) -> list[dict]:
    """The technical section's rows: item, value, what it means and when to worry (``check``)."""
    cut = trials[~trials["complete"].astype(bool)] if "complete" in trials else trials.iloc[:0]
    rows: list[dict] = []

    def add(key: str, value, means: str | None = None, check: bool = False, mono=False,
            known_only: bool = False) -> None:  # fmt: skip
        if known_only and (value is None or value == ""):
            return  # a figure this recorder does not have (imported data): nothing to explain
        shown = t["unknown"] if value is None or value == "" else value
        rows.append({"key": key, "label": t[key], "value": shown, "check": check, "mono": mono,
                     "means": means if means is not None else t[f"{key}_means"]})  # fmt: skip

    timing = meta.timing if meta is not None else None
    frames = meta.frames if meta is not None else None
    simulated = meta is not None and meta.simulate is not None
    add("recorded_by", recorded_by(meta))
    if meta is not None and meta.unavailable:
        add("not_recorded", ", ".join(meta.unavailable))
    method = timing.input_method if timing else None
    add("timing_method", _timing_text(method, t), t["timing_means"],
        check=method == "polled" and not simulated, known_only=True)  # fmt: skip
    for key, field in (("unmatched", "unmatched_presses"), ("unmatched_keys", "unmatched_keys")):
        n = getattr(timing, field, None) if timing is not None else None
        # Only on-arrival timing can miss a press; keys are counted by newer recorders only.
        if method and method != "polled" and (key == "unmatched" or n is not None):
            add(key, n, t["unmatched_means"], check=bool(n))
    lost = timing.input_lost if timing else None
    if lost is not None:
        add("input_lost", f"{lost.time:.1f} s: {lost.reason}", check=True)
    if meta is not None and (meta.window is not None or getattr(meta, "page", None)):
        n = sum(attention_losses(meta.model_dump(mode="json")).values())
        add("attention", t["attention_value"].format(n=n), check=bool(n))
    total = frames.total_frames if frames is not None else None
    if total:
        dropped = frames.total_dropped_frames or 0
        add("frames", t["frames_value"].format(total=total, dropped=dropped,
                                               pct=f"{100 * dropped / total:.1f}"),
            t["frames_means"].format(limit=round(100 * DROPPED_FRAMES_FLAG)),
            check=dropped / total > DROPPED_FRAMES_FLAG)  # fmt: skip
    work = [getattr(frames, k, None) if frames is not None else None
            for k in ("frame_work_median_ms", "frame_work_p99_ms", "frame_work_max_ms")]  # fmt: skip
    rate = meta.refresh_rate_hz if meta is not None else None
    period = 1000 / rate if rate else None
    add("frame_work", None if work[0] is None else " / ".join(_show(w) for w in work),
        t["frame_work_means"].format(period=_show(period) if period else t["unknown"]),
        check=bool(period and work[1] is not None and work[1] > period), known_only=True)  # fmt: skip
    resumes = meta.resumes if meta is not None else []
    add("resumes", (t["resumes_some"].format(n=len(resumes)) if resumes else t["resumes_none"])
        if meta is not None else None)  # fmt: skip
    add("cut_off", ", ".join(f"{r.problem_id} ({int(r.attempt)})" for r in cut.itertuples())
        or t["none"])  # fmt: skip
    add("practice", t["practice_in"] if conventions.include_practice else t["practice_out"])
    add("conventions", "; ".join(f"{k}={v}" for k, v in asdict(conventions).items()), mono=True)
    software = meta.software if meta is not None else None
    add("software", ", ".join(
        f"{name} {getattr(software, key)}"
        for key, name in (("tol_tasks", "tol-tasks"), ("psychopy", "PsychoPy"), ("python", "Python"))
        if software is not None and getattr(software, key, None)
    ))  # fmt: skip
    add("sha256", meta.protocol.sha256 if meta is not None else None, mono=True)
    return rows


def _protocol(meta: Sidecar | None, cache: dict):
    """The session's protocol, read from its sidecar's copy (None: no sidecar, or unreadable)."""
    if meta is None:
        return None
    key = meta.protocol.sha256 or meta.protocol.text
    if key not in cache:
        from tol_tasks.errors import TolTasksError
        from tol_tasks.protocol_format import load_protocol_text

        try:
            cache[key] = load_protocol_text(meta.protocol.text, source=f"{meta.protocol.name} "
                                            "(sidecar copy)")  # fmt: skip
        except (TolTasksError, ValueError):
            cache[key] = None
    return cache[key]


def _unrecorded(meta: Sidecar | None) -> set[str]:
    """Columns (trials.csv names) the session's recorder could not record."""
    if meta is None:
        return set()
    return {c for what in meta.unavailable for c in UNRECORDED.get(what, ())}


def _measure_rows(row, meta: Sidecar | None, t: dict) -> list[dict]:
    """The headline table: each measure's value and meaning; one without a value is left out,
    unless the recorder could not record it (then it says so)."""
    unrecorded = _unrecorded(meta)
    out = []
    for c in headline_columns():
        if c.name not in row:
            continue
        value = row[c.name]
        missing = any(c.name.endswith(u) for u in unrecorded)
        if _empty(value) and not missing:
            continue
        shown = t["not_recorded_value"] if _empty(value) and missing else _show(value, c.type)
        out.append({**column_text(c, t), "value": shown})
    return out


def _level_table(row, levels: list[int], t: dict) -> dict:
    """Results by difficulty: one row per minimum-move level, the headline measures as columns."""
    cols = [c for c in SESSION_LEVELS if c.headline and not _empty(row.get(c.name))  # defined above
            and any(not _empty(row.get(level_name(k, c.name))) for k in levels)]  # fmt: skip
    return {
        "columns": [column_text(c, t) for c in cols],
        "rows": [{"k": k, "cells": [{"key": level_name(k, c.name),
                                     "value": _show(row.get(level_name(k, c.name)), c.type)}
                                    for c in cols]}
                 for k in levels],
    }  # fmt: skip


def _solved_text(r, t: dict) -> str:
    """Solved, in words: yes; no, with the limit that ended it; or cut off (not a failure)."""
    if bool(r.solved):
        return t["word_yes"]
    if not bool(r.complete):
        return t["cut_title"]
    for column, key in (("move_limit_reached", "no_move_limit"), ("time_out", "no_time_limit")):
        value = getattr(r, column, None)
        if not _empty(value) and bool(value):
            return t[key]
    return t["word_no"]


def _problem_rows(trials: pd.DataFrame, puzzle_pictures, t: dict) -> list[dict]:
    out = []
    for r in trials.itertuples():
        out.append({
            "problem_id": r.problem_id, "attempt": int(r.attempt), "complete": bool(r.complete),
            "start": puzzle_pictures(r.puzzle, r.start), "goal": puzzle_pictures(r.puzzle, r.goal),
            "start_text": r.start, "goal_text": r.goal,
            "cells": {name: _show(getattr(r, name), TRIALS[name].type, t)
                      for name in PROBLEM_COLUMNS if name not in ("problem_id", "start")},
        })  # fmt: skip
        out[-1]["cells"]["solved"] = _solved_text(r, t)
    return out


def _pictures(protocol):
    """A function drawing a state of a puzzle (its code) as an inline SVG, in the protocol's colours."""
    from markupsafe import Markup

    from tol_analysis.report.boards import board_svg
    from tol_tasks.puzzles import from_code

    puzzles: dict = {}

    def draw(code: str, state: str):
        p = puzzles.setdefault(code, from_code(code))
        display = protocol.model.display if protocol is not None else None
        colour = (lambda piece: display.piece_color(p, piece)) if display is not None else None
        return Markup(board_svg(p, state, colour))  # our own markup, the state text escaped

    return draw


def _figures(trials: pd.DataFrame, moves: pd.DataFrame, layouts: dict, t: dict) -> dict:
    """The distance figure and the path figures of one session (SVG), or nothing without matplotlib."""
    out = {"distance": None, "no_move": 0, "distance_left_out": 0, "paths": [],
           "paths_left_out": 0, "too_large": None}  # fmt: skip
    try:
        from tol_analysis.report.plots import (
            fixed_layout,
            plot_distances,
            plot_state_graph,
        )
    except ImportError:
        return out
    with_moves = trials[trials["trial"].isin(moves["trial"])]
    out["no_move"] = len(trials) - len(with_moves)
    shown = with_moves.head(MAX_DISTANCE_PANELS)
    out["distance_left_out"] = len(with_moves) - len(shown)

    def title(r) -> str:
        cut = "" if bool(r["complete"]) else f", {t['cut_title']}"
        return f"{r['problem_id']} ({r['min_moves']}{cut})"

    out["distance"] = []
    for start in range(0, len(shown), PANELS_PER_ROW):  # a figure per row: rows flow over pages
        fig = plot_distances(
            shown.iloc[start : start + PANELS_PER_ROW],
            moves,
            columns=PANELS_PER_ROW,
            panel=(1.2, 1.05),
            title=title,
            layout=None,
        )  # fixed margins: a layout engine costs more than the drawing
        n = len(fig.axes)
        fig.subplots_adjust(
            left=0.33 / fig.get_figwidth(),
            right=1 - 0.04 / fig.get_figwidth(),
            bottom=0.3,
            top=0.84,
            wspace=0.3 * PANELS_PER_ROW / max(n, 1) / 2 + 0.2,
        )
        for ax in fig.axes:
            _unique_gids(ax)
            ax.tick_params(labelsize=5.5, length=2, pad=1.5)
            ax.set_xlabel(t["distance_x"], fontsize=6, labelpad=1)
            ax.set_ylabel("")
            ax.title.set_fontsize(6.5)
            if ax.get_legend():
                ax.get_legend().remove()
        fig.axes[0].set_ylabel(t["distance_y"], fontsize=6, labelpad=1)
        # A short last row is drawn as wide as its panels, not stretched to the page's width.
        out["distance"].append({"svg": _svg(fig, tight=False), "width": 100 * n / PANELS_PER_ROW})
    from matplotlib.figure import Figure

    for r in with_moves.head(MAX_PATHS).itertuples():
        layout = fixed_layout(r.puzzle, layouts)
        if layout is None:
            from tol_tasks.puzzles import from_code

            out["too_large"] = from_code(r.puzzle).n_states
            break
        m = moves[moves["trial"] == r.trial].sort_values("move_index")
        path = [r.start, *m["state_after"].tolist()]
        fig = Figure(figsize=(1.2, 1.2))
        ax = fig.add_subplot()
        ax.set_gid(f"graph-{r.trial}")
        plot_state_graph(r.puzzle, path, r.goal, ax=ax, layout=layout)
        _unique_gids(ax)
        if ax.get_legend():
            ax.get_legend().remove()
        attempt = f" ({int(r.attempt)})" if int(r.attempt) > 1 else ""
        cut = "" if bool(r.complete) else f", {t['cut_title']}"
        out["paths"].append({"svg": _svg(fig), "trial": int(r.trial),
                             "label": f"{r.problem_id}{attempt}{cut}: {len(path) - 1} / {r.min_moves}"})  # fmt: skip
    if out["too_large"] is None:
        out["paths_left_out"] = max(0, len(with_moves) - MAX_PATHS)
    return out


def _unique_gids(ax) -> None:
    """The participant's line named after its panel (one page holds many figures)."""
    for line in ax.lines:
        if line.get_gid() == "participant-path":
            line.set_gid(f"participant-path-{ax.get_gid()}")


def _simulated(row) -> bool:
    """sessions.csv says the simulated participant played the session."""
    value = row.get("simulated")
    return not _empty(value) and bool(value)


def _flags(row, meta: Sidecar | None, t: dict) -> list[str]:
    flags = []
    if _simulated(row):
        flags.append(t["flag_simulated"])
    if row["status"] != "completed":
        flags.append(t["flag_incomplete"])
    if meta is None:
        flags.append(t["flag_no_sidecar"])
        return flags
    frames, timing = meta.frames, meta.timing
    total = (frames.total_frames or 0) if frames else 0
    dropped = (frames.total_dropped_frames or 0) if frames else 0
    if total and dropped / total > DROPPED_FRAMES_FLAG:
        flags.append(t["flag_dropped"].format(pct=round(100 * dropped / total)))
    if timing is not None and timing.input_method == "polled" and meta.simulate is None:
        flags.append(t["flag_polled"])
    if timing is not None and timing.unmatched_presses:
        flags.append(t["flag_unmatched"].format(n=timing.unmatched_presses))
    keys = getattr(timing, "unmatched_keys", None) if timing is not None else None
    if keys:  # counted by newer recorders only
        flags.append(t["flag_unmatched_keys"].format(n=keys))
    away = sum(attention_losses(meta.model_dump(mode="json")).values())
    if away:
        flags.append(t["flag_attention"].format(n=away))
    return flags


def _task(trials: pd.DataFrame, row) -> str:
    """The session's task (hanoi, london), from sessions.csv when it says, else its trials."""
    if not _empty(row.get("task")):
        return str(row["task"])
    tasks = sorted(set(trials["task"].dropna())) if "task" in trials else []
    return "+".join(tasks)


def _task_name(task: str, t: dict) -> str:
    if not task:
        return t["no_problem"]
    return " + ".join(t.get(f"task_{k}", k) for k in task.split("+"))


def _date(meta: Sidecar | None) -> str | None:
    return str(meta.start_time or "")[:16].replace("T", " ") or None if meta else None


def report_name(participant, session, task: str | None = None) -> str:
    """The file name of a session's report: ``<participant>_ses-<n>.html``, with
    ``_task-<protocol>`` for a visit that gave several protocols (one report each)."""
    if task:
        return f"{participant}_ses-{session}_task-{re.sub(r'[^A-Za-z0-9]', '', task)}.html"
    return f"{participant}_ses-{session}.html"


def write_reports(
    scores: Scores, folder: str | Path, language: str = DEFAULT_LANGUAGE
) -> list[Path]:
    """One HTML report per session and the study overview (``index.html``) in ``folder``.

    Returns the files written.
    """
    env = jinja_environment()
    t = messages(language)
    out = Path(folder)
    out.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    data = scores.trials
    if not scores.conventions.include_practice and "practice" in data:
        data = data[~data["practice"].astype(bool)]
    overview = []
    layouts: dict = {}
    protocols: dict = {}
    visits = scores.sessions.groupby(["participant", "session"])["protocol"].transform("size")
    for k, row in scores.sessions.iterrows():
        key = (row["participant"], row["session"])
        own = (row["participant"], row["session"], row["protocol"])  # one task of the visit
        meta = scores.sidecars.get(own)
        trials = data[(data["participant"] == key[0]) & (data["session"] == key[1])
                      & (data["protocol"] == own[2])]  # fmt: skip
        moves = scores.moves[(scores.moves["participant"] == key[0])
                             & (scores.moves["session"] == key[1])
                             & (scores.moves["protocol"] == own[2])]  # fmt: skip
        levels = sorted(
            int(m.group(1)) for c in scores.sessions.columns
            if (m := _LEVEL.match(c)) and not _empty(row[c]) and row[c] > 0
        )  # fmt: skip
        protocol = _protocol(meta, protocols)
        task = _task(trials, row)
        html = env.get_template("session.html.j2").render(
            t=t, s=row.to_dict(), task=_task_name(task, t), date=_date(meta),
            protocol_name=None if _empty(row["protocol"]) else row["protocol"] or None,
            meta=meta, protocol=protocol, status=_status(row["status"], t),
            fields=list((meta.extra_fields if meta is not None else {}).items()),
            measures=_measure_rows(row, meta, t),
            by_level=_level_table(row, levels, t) if len(levels) > 1 else None,
            problems=_problem_rows(trials, _pictures(protocol), t),
            problem_columns=[column_text(TRIALS[c], t) for c in PROBLEM_COLUMNS],
            goal=column_text(TRIALS["goal"], t),
            figures=_figures(trials, moves, layouts, t),
            technical=_technical(meta, trials, scores.conventions, t), version=__version__,
        )  # fmt: skip
        path = out / report_name(*key, own[2] if visits[k] > 1 else None)
        path.write_text(html, encoding="utf-8")
        written.append(path)
        overview.append({"participant": key[0], "session": key[1], "href": path.name,
                         "task": task, "simulated": _simulated(row), "date": _date(meta),
                         "protocol": None if _empty(row["protocol"]) else row["protocol"] or None,
                         "status": _status(row["status"], t),
                         "values": row, "flags": _flags(row, meta, t)})  # fmt: skip
    by_status = scores.sessions["status"].value_counts().sort_index()
    index = env.get_template("index.html.j2").render(
        t=t, by_status=[(_status(s, t), n) for s, n in by_status.items()],
        n_sessions=len(overview), tasks=_task_sections(overview, data, t),
        status_column=column_text(SESSIONS["status"], t), version=__version__,
    )  # fmt: skip
    path = out / "index.html"
    path.write_text(index, encoding="utf-8")
    written.append(path)
    return written


def _status(status: str, t: dict) -> dict:
    return {
        "key": status,
        "text": t.get(status, status),
        "means": t.get(f"status_means_{status}", ""),
    }


def _task_sections(overview: list[dict], trials: pd.DataFrame, t: dict) -> list[dict]:
    """The overview, one section per task (Hanoi and London never pooled): its sessions, the
    headline measures any of them has, and the group figures by level."""
    sections = []
    for task in sorted({r["task"] for r in overview}, key=lambda k: (k == "", k)):
        rows = [r for r in overview if r["task"] == task]
        cols = [c for c in headline_columns()
                if any(not _empty(r["values"].get(c.name)) for r in rows)]  # fmt: skip
        protocols = pd.DataFrame([(r["participant"], r["session"], r["protocol"]) for r in rows],
                                 columns=["participant", "session", "protocol"])  # fmt: skip
        one_task = bool(task) and "+" not in task  # never two tasks on one axis
        task_trials = trials[trials["task"] == task] if one_task else trials.iloc[:0]
        task_trials = task_trials.merge(protocols, on=["participant", "session", "protocol"])
        sections.append({
            "task": task or "none", "name": _task_name(task, t), "columns": [column_text(c, t) for c in cols],
            "rows": [{**r, "cells": [{"key": c.name, "value": _show(r["values"].get(c.name), c.type)}
                                     for c in cols]} for r in rows],
            "figures": _group_figures(task_trials, t),
        })  # fmt: skip
    return sections


def _group_figures(trials: pd.DataFrame, t: dict) -> list[dict]:
    """Solved in the fewest moves and planning time by minimum-move level, over the task's tries."""
    if "complete" in trials:
        trials = trials[trials["complete"].astype(bool)]  # a try cut off is not a failure
    if trials.empty:
        return []
    try:
        from matplotlib.figure import Figure

        from tol_analysis.report.plots import plot_by_level
    except ImportError:
        return []
    out = []
    by = "protocol" if trials["protocol"].nunique() > 1 else None
    for measure, label, unit in (("solved_in_min", t["by_level_solved_in_min"], t["share"]),
                                 ("planning_time", t["by_level_planning"], "s")):  # fmt: skip
        values = pd.to_numeric(trials[measure], errors="coerce").astype("float64")
        if not values.notna().any():
            continue  # nothing to draw: no empty axis
        fig = Figure(figsize=(3.4, 2.3), layout="constrained")
        ax = fig.add_subplot()
        plot_by_level(trials, measure, ax=ax, by=by)
        ax.set_xlabel(t["by_level_x"], fontsize=8)
        ax.set_ylabel(unit, fontsize=8)
        ax.set_title(label, fontsize=9)
        ax.tick_params(labelsize=7)
        if ax.get_legend():
            ax.legend(
                fontsize=6,
                title=t["protocol"],
                title_fontsize=6,
                frameon=False,
                loc="upper center",
                bbox_to_anchor=(0.5, -0.28),
                ncol=2,
            )  # below the axes
        ax.set_gid(f"by-level-{measure}")
        if measure == "solved_in_min":
            ax.set_ylim(-0.05, 1.05)
        out.append({"svg": _svg(fig), "label": label})
    return out
