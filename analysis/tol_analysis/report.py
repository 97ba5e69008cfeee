"""Session reports for clinicians and a study overview for researchers (HTML, print to A4/Letter).

Built only from the scored tables and the sidecars (:class:`tol_analysis.score.Scores`):
every number shown is read from ``sessions.csv`` and ``trials.csv`` as
:func:`tol_analysis.score.score_sessions` computed them, never computed again.
Each file is self-contained (styles inline, figures inline as SVG, no
network). The template is ``analysis/templates/session.html.j2`` (and
``index.html.j2``); the texts, per language, ``report-messages.yaml``.

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
import yaml

from tol_analysis.recorder import recorded_by
from tol_analysis.score import Scores
from tol_tasks import __version__
from tol_tasks.session_data.sidecar import Sidecar

TEMPLATES = Path(__file__).parent / "templates"
_LEVEL = re.compile(r"^min(\d+)_problems$")
#: The language of the reports when none is chosen.
DEFAULT_LANGUAGE = "en"
#: Problems drawn on the state graph in a session report (the rest are in the tables).
MAX_PATHS = 8
#: Problems in the distance figure of a session report.
MAX_DISTANCE_PANELS = 16
#: A session is flagged when more than this share of its frames was dropped.
DROPPED_FRAMES_FLAG = 0.05

#: Headline measures (sessions.csv columns), in the order shown.
MEASURES = (
    "problems", "problems_solved", "problems_solved_in_min", "total_moves",
    "total_excess_moves", "total_rule_violations", "total_time_violations",
    "mean_planning_time", "mean_time_per_move",
)  # fmt: skip

#: Shown too when the session had yoked copy trials (Owen et al., 1990).
COPY_MEASURES = ("mean_initial_thinking_time", "mean_subsequent_thinking_time_per_move")


def _has(row, column: str) -> bool:
    """The session has a value in ``column`` (e.g. it had copy trials)."""
    value = row.get(column)
    return value is not None and not pd.isna(value)


def _jinja():
    try:
        import jinja2
    except ImportError as exc:
        raise ImportError(
            f"tol-score --report needs Jinja2 ({exc}). Install it with: "
            'pip install "tol-tasks[report]"  (or: uv sync --all-extras)'
        ) from exc
    return jinja2.Environment(
        loader=jinja2.FileSystemLoader(TEMPLATES),
        autoescape=jinja2.select_autoescape(["html", "j2"]),
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )


def languages() -> list[str]:
    """The languages the reports can be written in."""
    return list(_messages_all())


def _messages_all() -> dict:
    return yaml.safe_load((TEMPLATES / "report-messages.yaml").read_text(encoding="utf-8"))


def messages(language: str = DEFAULT_LANGUAGE) -> dict:
    """The report texts in ``language``.

    Raises
    ------
    ValueError
        An unknown language, naming the ones there are.
    """
    every = _messages_all()
    if language not in every:
        raise ValueError(
            f"--language {language!r}: no report texts in that language. Suggested fix: "
            f"choose one of {', '.join(every)}, or add one to {TEMPLATES / 'report-messages.yaml'}."
        )
    return {**every[DEFAULT_LANGUAGE], **every[language]}


def _show(value, digits: int = 2) -> str:
    """A table cell: integers as they are, floats rounded, missing as an en dash."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "–"
    if isinstance(value, (bool,)):
        return str(value)
    if isinstance(value, float) and value.is_integer() and digits == 0:
        return str(int(value))
    if isinstance(value, float):
        return f"{value:.{digits}f}"
    return str(value)


def _svg(fig) -> str:
    """A matplotlib figure as an inline ``<svg>`` element (text drawn as paths: no fonts)."""
    import matplotlib

    buf = io.StringIO()
    with matplotlib.rc_context({"svg.fonttype": "path", "svg.hashsalt": "tol-tasks"}):
        fig.savefig(buf, format="svg", bbox_inches="tight", metadata={"Date": None})
    text = buf.getvalue()
    from markupsafe import Markup  # Jinja2's own; the SVG is ours, not user text

    return Markup(text[text.index("<svg") :])


def _timing_text(method: str | None, t: dict) -> str | None:
    if not method:
        return None
    return t["timing_polled"] if method == "polled" else t["timing_arrival"].format(method=method)


def _session_info(meta: Sidecar | None, trials: pd.DataFrame, conventions, t: dict) -> dict:
    """What the header and the data-quality box say, from the sidecar (None if missing)."""
    cut = trials[~trials["complete"].astype(bool)] if "complete" in trials else trials.iloc[:0]
    info = {
        "has_sidecar": meta is not None,
        "cut_off": ", ".join(f"{r.problem_id} ({r.attempt})" for r in cut.itertuples()),
        "conventions": "; ".join(f"{k}={v}" for k, v in asdict(conventions).items()),
        "date": None, "protocol_version": None, "sha256": None, "software": None,
        "timing": None, "frames": None, "frame_work": None, "unmatched": None,
        "input_lost": None, "simulated": False, "resumes": t["unknown"],
        "recorded_by": None, "not_recorded": None,
    }  # fmt: skip
    if meta is None:
        return info
    software, timing, frames = meta.software, meta.timing, meta.frames
    info.update(
        date=str(meta.start_time or "")[:16].replace("T", " ") or None,
        protocol_version=meta.protocol.version,
        sha256=meta.protocol.sha256,
        software=", ".join(
            f"{name} {getattr(software, key)}"
            for key, name in (
                ("tol_tasks", "tol-tasks"),
                ("psychopy", "PsychoPy"),
                ("python", "Python"),
            )
            if software is not None and getattr(software, key, None)
        )
        or None,
        timing=_timing_text(timing.input_method if timing else None, t),
        unmatched=timing.unmatched_presses if timing else None,
        simulated=meta.simulate is not None,
        recorded_by=recorded_by(meta),
        not_recorded=", ".join(meta.unavailable) or None,
        resumes=t["resumes_some"].format(n=len(meta.resumes)) if meta.resumes
        else t["resumes_none"],
    )  # fmt: skip
    lost = timing.input_lost if timing else None
    if lost is not None:
        info["input_lost"] = f"{lost.time:.1f} s: {lost.reason}"
    if frames is not None and frames.total_frames is not None:
        info["frames"] = f"{frames.total_frames} / {frames.total_dropped_frames or 0}"
        info["frame_work"] = " / ".join(
            _show(getattr(frames, k)) for k in
            ("frame_work_median_ms", "frame_work_p99_ms", "frame_work_max_ms")
        )  # fmt: skip
    return info


def _figures(scores: Scores, trials: pd.DataFrame, moves: pd.DataFrame):
    """The distance figure and the path figures of one session (SVG), or nothing without matplotlib."""
    try:
        from matplotlib.figure import Figure

        from tol_analysis.plots import plot_distance, plot_state_graph
    except ImportError:
        return None, [], 0
    shown = trials.head(MAX_DISTANCE_PANELS)
    n = len(shown)
    distance = None
    if n:
        cols = min(4, n)
        rows = math.ceil(n / cols)
        fig = Figure(figsize=(7.2, 1.55 * rows + 0.2), layout="constrained")
        axes = fig.subplots(rows, cols, squeeze=False).ravel()
        for ax, t in zip(axes, shown.itertuples(), strict=False):
            m = moves[moves["trial"] == t.trial]
            if len(m):
                plot_distance(m, int(t.min_moves), ax=ax)
            ax.set_title(f"{t.problem_id} ({t.min_moves})", fontsize=7)
            ax.tick_params(labelsize=6)
            ax.set_xlabel("")
            ax.set_ylabel("")
            if ax.get_legend():
                ax.get_legend().remove()
        for ax in axes[n:]:
            ax.set_axis_off()
        distance = _svg(fig)
    paths = []
    for t in trials.head(MAX_PATHS).itertuples():
        m = moves[moves["trial"] == t.trial].sort_values("move_index")
        path = [t.start, *m["state_after"].tolist()]
        fig = Figure(figsize=(1.8, 1.8))
        ax = fig.add_subplot()
        try:
            plot_state_graph(t.puzzle, path, t.goal, ax=ax)
        except ValueError:
            continue  # too large to draw
        if ax.get_legend():
            ax.get_legend().remove()
        paths.append(
            {"svg": _svg(fig), "label": f"{t.problem_id}: {len(path) - 1} / {t.min_moves}"}
        )
    return distance, paths, max(0, len(trials) - MAX_PATHS)


def _simulated(row) -> bool:
    """sessions.csv says the simulated participant played the session."""
    return _has(row, "simulated") and bool(row["simulated"])


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
    return flags


def report_name(participant, session) -> str:
    """The file name of a session's report: ``<participant>_ses-<n>.html``."""
    return f"{participant}_ses-{session}.html"


def write_reports(
    scores: Scores, folder: str | Path, language: str = DEFAULT_LANGUAGE
) -> list[Path]:
    """One HTML report per session and the study overview (``index.html``) in ``folder``.

    Returns the files written.
    """
    env = _jinja()
    t = messages(language)
    out = Path(folder)
    out.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    data = scores.trials
    if not scores.conventions.include_practice and "practice" in data:
        data = data[~data["practice"].astype(bool)]
    overview = []
    for _, row in scores.sessions.iterrows():
        key = (row["participant"], row["session"])
        meta = scores.sidecars.get(key)
        trials = data[(data["participant"] == key[0]) & (data["session"] == key[1])]
        moves = scores.moves[(scores.moves["participant"] == key[0])
                             & (scores.moves["session"] == key[1])]  # fmt: skip
        levels = sorted(
            int(m.group(1)) for c in scores.sessions.columns
            if (m := _LEVEL.match(c)) and not pd.isna(row[c]) and row[c] > 0
        )  # fmt: skip
        measures = [
            {"key": m, "overall": _show(row.get(m)),
             "levels": [_show(row[f"min{k}_{m}"]) if f"min{k}_{m}" in row else "–"
                        for k in levels]}
            for m in MEASURES + (COPY_MEASURES if _has(row, COPY_MEASURES[0]) else ())
        ]  # fmt: skip
        problems = [
            {"problem_id": r.problem_id, "attempt": int(r.attempt), "start": r.start,
             "goal": r.goal, "min_moves": _show(r.min_moves), "moves": _show(r.moves),
             "solved": bool(r.solved), "planning_time": _show(r.planning_time),
             "total_time": _show(r.total_time), "rule_violations": _show(r.rule_violations),
             "complete": bool(r.complete)}
            for r in trials.itertuples()
        ]  # fmt: skip
        distance, paths, left_out = _figures(scores, trials, moves)
        info = _session_info(meta, trials, scores.conventions, t)
        html = env.get_template("session.html.j2").render(
            t=t, s=row.to_dict(), info=info, levels=levels, measures=measures,
            problems=problems, distance_svg=distance, path_svgs=paths,
            paths_left_out=left_out, conventions=scores.conventions, version=__version__,
        )  # fmt: skip
        path = out / report_name(*key)
        path.write_text(html, encoding="utf-8")
        written.append(path)
        overview.append({
            "participant": key[0], "session": key[1], "href": path.name,
            "simulated": _simulated(row),
            "date": info["date"], "protocol": row["protocol"], "status": row["status"],
            "problems_solved": _show(row["problems_solved"]),
            "total_excess_moves": _show(row["total_excess_moves"]),
            "mean_planning_time": _show(row["mean_planning_time"]),
            "flags": _flags(row, meta, t),
        })  # fmt: skip
    by_status = scores.sessions["status"].value_counts().sort_index()
    index = env.get_template("index.html.j2").render(
        t=t, rows=overview, by_status=list(by_status.items()),
        group_svgs=_group_figures(data, t), version=__version__,
    )  # fmt: skip
    path = out / "index.html"
    path.write_text(index, encoding="utf-8")
    written.append(path)
    return written


def _group_figures(trials: pd.DataFrame, t: dict) -> list[dict]:
    """Excess moves and planning time by minimum-move level, one line per participant."""
    if trials.empty:
        return []
    try:
        from matplotlib.figure import Figure

        from tol_analysis.plots import plot_by_level
    except ImportError:
        return []
    out = []
    for measure, label in (("excess_moves", t["excess_by_level"]),
                           ("planning_time", t["planning_by_level"])):  # fmt: skip
        fig = Figure(figsize=(3.6, 2.6), layout="constrained")
        ax = fig.add_subplot()
        plot_by_level(trials, measure, ax=ax, by="participant")
        out.append({"svg": _svg(fig), "label": label})
    return out
