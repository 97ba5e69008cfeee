"""The neuroimaging hardware a protocol asks for, checked before any window (no PsychoPy here).

:func:`check_hardware` refuses, with the setting and the fix, what would otherwise fail
once the session has started: a scanner trigger on a serial line with no port, a port
setting with nothing to use it, marker codes for events the log does not have, a
package that is not installed, and the eye tracker's ioHub sharing with ioHub input.
The marker codes are read here too (:func:`marker_codes`), so the runner sends exactly
the codes checked.
"""

from __future__ import annotations

import importlib.util

from tol_tasks.errors import TolTasksError
from tol_tasks.session_data.eventlog import codebook, events

from .settings import RunSettings, SettingsError

#: The install hint of the optional packages the hardware needs.
NEURO_HINT = "install the neuro extra: pip install 'tol-tasks[neuro]'"


class HardwareError(TolTasksError, ValueError):
    """The protocol's hardware cannot be used as it asks; names the field and the fix."""


def marker_codes(spec) -> dict[str, int]:
    """The code of each event: the codebook's, with the protocol's replacements (0: not sent).

    Raises
    ------
    HardwareError
        A replacement for an event the log does not have.
    """
    known = events()
    for name, code in spec.codes.items():
        if name not in known:
            raise HardwareError(f"markers.codes names {name!r}, which is not an event of the log.",
                                field=f"markers.codes.{name}", value=code,
                                fix=f"use one of: {', '.join(sorted(known))}.")  # fmt: skip
    return {k: v for k, v in {**codebook()["marker_codes"], **spec.codes}.items() if v}


def _need(module: str, what: str, package: str) -> None:
    if importlib.util.find_spec(module) is None:
        raise HardwareError(f"{what} needs {package}, which is not installed.", field=what,
                            fix=NEURO_HINT + f" ({package}).")  # fmt: skip


def check_hardware(settings: RunSettings, model) -> None:
    """Refuse what the protocol's ``scanner``, ``markers`` and ``eyetracking`` sections and the
    run's port settings cannot do (see the module's description)."""
    scanner, markers, eyes = model.scanner, model.markers, model.eyetracking
    serial_scan = scanner is not None and scanner.trigger == "serial"
    if settings.trigger_port and not serial_scan:
        raise SettingsError("trigger_port", settings.trigger_port, "has no effect: the protocol "
                            "reads no scanner trigger from a serial line (scanner.trigger).",
                            "leave {this} out, or give the protocol a scanner section with "
                            "trigger: serial.")  # fmt: skip
    if serial_scan:
        if not (settings.trigger_port or scanner.port):
            raise HardwareError("scanner.trigger is serial but no port is given.",
                                field="scanner.port", value=None, fix="give scanner.port in "
                                "the protocol, or tol-run --trigger-port PORT.")  # fmt: skip
        _need("serial", "scanner.port", "pyserial")
    if settings.marker_port and markers is None:
        raise SettingsError("marker_port", settings.marker_port, "has no effect: the protocol "
                            "sends no markers (it has no markers section).",
                            "leave {this} out, or give the protocol a markers section.")  # fmt: skip
    if markers is not None:
        marker_codes(markers)
        if markers.lsl:
            _need("pylsl", "markers.lsl", "pylsl")
        if markers.serial or settings.marker_port:
            _need("serial", "markers.serial", "pyserial")
    if eyes is not None and settings.input_timing == "iohub":
        raise SettingsError("input_timing", "iohub", "cannot be used with the protocol's "
                            "eyetracking section: ioHub runs once, for the eye tracker.",
                            "use {this} auto or xinput2 (Linux), or polled.")  # fmt: skip
