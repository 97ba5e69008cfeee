"""What each scored session's log and sidecar say about it beside its trials: a
:class:`SessionInfo` per session task, from which :mod:`tol_analysis.score.sessions` makes
sessions.csv (kept on disk while many sessions are scored: :mod:`tol_analysis.read.spill`)."""

from __future__ import annotations

from dataclasses import dataclass, field

from tol_analysis.conventions import Conventions


@dataclass(slots=True)
class SessionInfo:
    """What the log (and its sidecar) says about a session task, beside its trials.

    ``planned`` holds the (block, problem id) pairs the protocol gives this session (None
    when the protocol is not known); ``discontinued`` the blocks the discontinue rule ended;
    ``fields`` the participant fields (texts), and ``field_types`` the type the protocol
    declares for each.
    """

    participant: str
    session: int
    protocol: str
    status: str
    simulated: bool | None = None
    version: str | None = None
    start: str | None = None
    recorder: str | None = None
    fields: dict[str, str] = field(default_factory=dict)
    field_types: dict[str, str] = field(default_factory=dict)
    planned: tuple[tuple[str, str], ...] | None = None
    discontinued: tuple[str, ...] = ()
    key: tuple[str, int, str] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self.key = (self.participant, self.session, self.protocol)


def session_info(log, status: str, discontinued: tuple[str, ...], simulated: bool | None,
                 conv: Conventions, plans: dict, warnings: list[str]) -> SessionInfo:  # fmt: skip
    """A scored log's :class:`SessionInfo`; its protocol read once per SHA-256 (``plans``),
    and its participant fields checked against the types the protocol declares (a value
    that breaks its type is left out, with a warning naming it)."""
    from tol_analysis.read.sidecar import recorded_by

    meta = log.sidecar
    info = SessionInfo(log.participant, log.session, log.task, status, simulated,
                       discontinued=discontinued)  # fmt: skip
    if meta is None:
        return info
    proto = meta.protocol
    info.version = proto.version if proto is not None else None
    info.start = meta.start_time
    info.recorder = recorded_by(meta)
    lp = _protocol(proto, plans)
    if lp is not None:
        _, blocks = lp.form_for(log.participant, log.session)
        key = (proto.sha256, tuple(blocks), conv.include_practice)
        if key not in plans:  # each form's problems listed once
            model = lp.model
            problems = [(model.blocks[i].name, p.id) for i in blocks
                        for p in model.blocks[i].problems]  # fmt: skip
            if conv.include_practice:
                problems = [("practice", p.id) for p in model.practice.problems] + problems
            plans[key] = tuple(dict.fromkeys(problems))
        info.planned = plans[key]
    declared = lp.model.participant_fields if lp is not None else {}
    for name, value in (meta.extra_fields or {}).items():
        text = "" if value is None else str(value)
        spec = declared.get(name)
        fault = spec.check(text) if spec is not None else None
        if fault:
            warnings.append(f"{log.sidecar_path}: participant field {name!r} holds "
                            f"{text!r}: {fault}. Left empty in the tables; fix the value in "
                            "the sidecar's extra_fields only if it was mistyped.")  # fmt: skip
            text = ""
        info.fields[name] = text
        info.field_types[name] = spec.type if spec is not None else "text"
    return info


def _protocol(proto, plans: dict):
    """The protocol a sidecar keeps (read once per SHA-256; None when there is none or this
    version cannot read it)."""
    if proto is None or not proto.text:
        return None
    if proto.sha256 not in plans:
        from tol_tasks.errors import TolTasksError
        from tol_tasks.protocol_format import load_protocol_text

        try:
            plans[proto.sha256] = load_protocol_text(proto.text, f"{proto.name} (sidecar copy)")
        except TolTasksError:
            plans[proto.sha256] = None
    return plans[proto.sha256]
