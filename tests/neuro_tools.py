"""Helpers of the neuroimaging tests: the files a lab's BIDS dataset holds beside our events
(a BOLD run, an EEG recording), written from their formats' specifications, no library;
and the two ends of the serial lines a session uses, as real pseudo-terminals."""

from __future__ import annotations

import gzip
import json
import os
import struct
import threading
import time
import tty
from pathlib import Path


def write_bold(path: Path, volumes: int, tr: float, task: str) -> None:
    """A 4 x 4 x 2 x ``volumes`` NIfTI-1 BOLD run (int16 zeros) with its JSON sidecar.

    The header follows the NIfTI-1 standard (nifti1.h): 348 bytes, then 4 bytes of
    extension flags, the data from byte 352; times in seconds (xyzt_units 8 + 2: mm, s).
    """
    dims = (4, 4, 4, 2, volumes, 1, 1, 1)
    hdr = bytearray(348)
    struct.pack_into("<i", hdr, 0, 348)  # sizeof_hdr
    struct.pack_into("<8h", hdr, 40, *dims)  # dim
    struct.pack_into("<hh", hdr, 70, 4, 16)  # datatype INT16, bitpix
    struct.pack_into("<8f", hdr, 76, 1.0, 3.0, 3.0, 3.0, tr, 0, 0, 0)  # pixdim
    struct.pack_into("<f", hdr, 108, 352.0)  # vox_offset
    struct.pack_into("<f", hdr, 112, 1.0)  # scl_slope
    hdr[123] = 10  # xyzt_units: NIFTI_UNITS_MM | NIFTI_UNITS_SEC
    struct.pack_into("<h", hdr, 252, 1)  # qform_code: scanner
    struct.pack_into("<h", hdr, 254, 1)  # sform_code
    struct.pack_into("<4f", hdr, 280, 3.0, 0, 0, 0)  # srow_x
    struct.pack_into("<4f", hdr, 296, 0, 3.0, 0, 0)  # srow_y
    struct.pack_into("<4f", hdr, 312, 0, 0, 3.0, 0)  # srow_z
    hdr[344:348] = b"n+1\0"
    data = bytes(4 * 4 * 2 * volumes * 2)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(gzip.compress(bytes(hdr) + b"\0\0\0\0" + data))
    side = {
        "TaskName": task,
        "RepetitionTime": tr,
        "SliceTiming": [0.0, tr / 2],
        "SkullStripped": False,
    }
    path.with_name(path.name.replace(".nii.gz", ".json")).write_text(json.dumps(side))


def write_brainvision(stem: Path, seconds: float, rate: int, markers: list[tuple[float, int]],
                      task: str) -> None:  # fmt: skip
    """A 2-channel BrainVision recording (Brain Products' Core Data Format 1.0: .vhdr, .vmrk,
    .eeg of int16 zeros) of ``seconds``, with a stimulus marker ``S<code>`` at each
    (time from the recording's start, code), and its BIDS EEG sidecar and channels.tsv."""
    stem.parent.mkdir(parents=True, exist_ok=True)
    name = stem.name
    samples = int(seconds * rate)
    (stem.parent / f"{name}_eeg.eeg").write_bytes(bytes(samples * 2 * 2))
    (stem.parent / f"{name}_eeg.vhdr").write_text(
        "Brain Vision Data Exchange Header File Version 1.0\n\n[Common Infos]\nCodepage=UTF-8\n"
        f"DataFile={name}_eeg.eeg\nMarkerFile={name}_eeg.vmrk\nDataFormat=BINARY\n"
        "DataOrientation=MULTIPLEXED\nNumberOfChannels=2\n"
        f"SamplingInterval={1e6 / rate:g}\n\n[Binary Infos]\nBinaryFormat=INT_16\n\n"
        "[Channel Infos]\nCh1=Fz,,0.1,µV\nCh2=Cz,,0.1,µV\n"
    )  # fmt: skip
    lines = ["Mk1=New Segment,,1,1,0"]
    for k, (t, code) in enumerate(markers, start=2):
        lines.append(f"Mk{k}=Stimulus,S{code:3d},{int(t * rate) + 1},1,0")
    (stem.parent / f"{name}_eeg.vmrk").write_text(
        "Brain Vision Data Exchange Marker File Version 1.0\n\n[Common Infos]\nCodepage=UTF-8\n"
        f"DataFile={name}_eeg.eeg\n\n[Marker Infos]\n" + "\n".join(lines) + "\n"
    )  # fmt: skip
    (stem.parent / f"{name}_eeg.json").write_text(json.dumps({
        "TaskName": task, "SamplingFrequency": rate, "PowerLineFrequency": 50,
        "EEGReference": "FCz", "SoftwareFilters": "n/a", "EEGChannelCount": 2,
        "RecordingDuration": seconds, "RecordingType": "continuous",
    }))  # fmt: skip
    (stem.parent / f"{name}_channels.tsv").write_text(
        "name\ttype\tunits\nFz\tEEG\tµV\nCz\tEEG\tµV\n"
    )


def keys_protocol(name: str, *sections: str) -> str:
    """A windowed 3-disk Tower of Hanoi protocol played with the keys 1, 2, 3, no pages, no
    pauses, no feedback, with ``sections`` (YAML text) after the common part."""
    return (
        f"format: 1\nname: {name}\ntask: {{type: hanoi, disks: 3}}\ninstructions: none\n"
        "display: {fullscreen: false, window_size: [800, 600]}\n"
        'input: {mode: keys, keys: ["1", "2", "3"]}\nfeedback: none\n'
        "timing: {inter_trial_interval: 0, feedback_duration: 0}\n" + "".join(sections)
    )


class PortReader:
    """The far end of a pseudo-terminal: every byte with its arrival time (time.monotonic)."""

    def __init__(self):
        self.master, slave = os.openpty()
        tty.setraw(slave)
        self.path = os.ttyname(slave)
        self._slave = slave
        self.bytes: list[tuple[int, float]] = []
        self._stop = False
        self._thread = threading.Thread(target=self._read, daemon=True)
        self._thread.start()

    def _read(self):
        import select

        while not self._stop:
            ready, _, _ = select.select([self.master], [], [], 0.1)
            if ready:
                data = os.read(self.master, 64)
                now = time.monotonic()
                self.bytes += [(b, now) for b in data]

    def close(self):
        self._stop = True
        self._thread.join(timeout=2)
        os.close(self.master)
        os.close(self._slave)


class SerialScanner:
    """The scanner's end of a pseudo-terminal (``path`` names the other end, the serial port
    a session reads): once started, the ``trigger`` byte every ``tr`` seconds (and the
    ``other`` byte half a TR after every second one) until stopped."""

    def __init__(self, trigger: int, other: int, tr: float):
        self.trigger, self.other, self.tr = trigger, other, tr
        self.master, self._slave = os.openpty()
        tty.setraw(self._slave)
        self.path = os.ttyname(self._slave)
        self.sent: list[float] = []  # time.monotonic of each trigger byte written
        self._go, self._stop = threading.Event(), threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self):
        self._go.wait()
        due = time.monotonic()
        while not self._stop.is_set():
            os.write(self.master, bytes([self.trigger]))
            self.sent.append(time.monotonic())
            if len(self.sent) % 2 == 0:
                time.sleep(self.tr / 2)
                os.write(self.master, bytes([self.other]))
            due += self.tr
            self._stop.wait(max(0.0, due - time.monotonic()))

    def start(self):
        self._go.set()

    def stop(self) -> int:
        self._stop.set()
        self._thread.join(timeout=5)
        return len(self.sent)

    def close(self):
        self._go.set()
        self.stop()
        os.close(self.master)
        os.close(self._slave)
