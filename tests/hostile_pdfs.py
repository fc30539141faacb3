"""A corpus of hostile and odd PDFs, written byte by byte, and a runner that measures one.

Each :class:`Case` builds its PDF (no fixture files), says what ``extract_pdf`` must do with
it (a result, or an error code and message) under which limits, and how long and how much
memory that may take. ``python tests/hostile_pdfs.py FILE LIMITS_JSON`` parses one file in a
fresh process and prints what happened as JSON, with the peak resident memory of that
process and of the PDF parser process it started (``RUSAGE_CHILDREN`` after the parser has
been reaped): the tests (tests/ingest/test_hostile_pdfs.py) and the benchmark
(bench/bench_hostile_pdfs.py) both use it.
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import time
import zlib
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

HELVETICA = b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>"


# -- writing PDFs by hand ----------------------------------------------------------------
def build(objects: list[bytes], *, xref_shift: int = 0, root: int = 1) -> bytes:
    """A PDF of ``objects`` (numbered from 1) with a cross-reference table; ``xref_shift``
    moves every offset in the table (a broken xref that MuPDF must repair)."""
    out = bytearray(b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    for offset in offsets:
        out += b"%010d 00000 n \n" % (offset + xref_shift)
    out += b"trailer\n<< /Size %d /Root %d 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (
        len(objects) + 1,
        root,
        xref,
    )
    return bytes(out)


def stream(data: bytes, *, extra: bytes = b"", compress: bool = True) -> bytes:
    """A stream object body, Flate-compressed unless told otherwise."""
    if compress:
        data = zlib.compress(data, 6)
        extra += b" /Filter /FlateDecode"
    return b"<< /Length %d %s >>\nstream\n" % (len(data), extra) + data + b"\nendstream"


def deflated(stream_data: bytes, *, extra: bytes = b"") -> bytes:
    """A stream object body whose data is already Flate-compressed."""
    return (
        b"<< /Length %d /Filter /FlateDecode %s >>\nstream\n" % (len(stream_data), extra)
        + stream_data
        + b"\nendstream"
    )


def pages_pdf(contents: list[bytes], *, mediabox: bytes = b"[0 0 612 792]") -> bytes:
    """One page per content stream (already stream object bodies), Helvetica as /F1."""
    count = len(contents)
    kids = b" ".join(b"%d 0 R" % (4 + 2 * i) for i in range(count))
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [%s] /Count %d >>" % (kids, count),
        HELVETICA,
    ]
    for i, content in enumerate(contents):
        objects.append(
            b"<< /Type /Page /Parent 2 0 R /MediaBox %s /Resources << /Font << /F1 3 0 R >> >> "
            b"/Contents %d 0 R >>" % (mediabox, 5 + 2 * i)
        )
        objects.append(content)
    return build(objects)


def one_page(content: bytes, **kwargs: Any) -> bytes:
    return pages_pdf([stream(content)], **kwargs)


SENTENCE = b"(Sulfate aerosols from volcanic eruptions cool the climate for a year or two.) Tj"


def text_page(lines: int = 20) -> bytes:
    """A readable page of text (content stream data)."""
    body = b"\n".join(b"1 0 0 1 72 %d Tm %s" % (740 - 14 * i, SENTENCE) for i in range(lines))
    return b"BT /F1 10 Tf\n" + body + b"\nET"


# -- the hostile cases -------------------------------------------------------------------
def text_bomb(runs: int, *, varied: bool = False) -> bytes:
    """One page with ``runs`` positioned one-letter text runs, 600 to a row.

    ``varied``: every run has its own absolute position (3 million runs: a 7.5 MB file, as
    in the report that found it; slow to build); else relative moves, which compress to
    almost nothing and cost MuPDF the same."""
    if varied:
        parts = [b"BT /F1 1 Tf"]
        parts += [b"1 0 0 1 %d %d Tm (a) Tj" % (i % 600, (i // 600) % 790) for i in range(runs)]
        parts.append(b"ET")
        return one_page(b"\n".join(parts))
    row = b"1 0 Td (a) Tj\n" * 600 + b"-600 -0.15 Td\n"
    rows, rest = divmod(runs, 600)
    content = b"BT /F1 1 Tf 6 780 Td\n" + row * rows + b"1 0 Td (a) Tj\n" * rest + b"ET"
    return one_page(content)


def drawing_bomb(segments: int) -> bytes:
    """One page of ``segments`` short stroked lines (3 operators each) and a line of text."""
    parts = [text_page(1)]
    parts += [
        b"%d %d m %d %d l S" % (i % 600, i % 780, i % 600 + 2, i % 780 + 2) for i in range(segments)
    ]
    return one_page(b"\n".join(parts))


def long_string_page(chars: int) -> bytes:
    """One text run showing ``chars`` letters, in a font small enough to stay on the page."""
    return one_page(b"BT /F1 0.002 Tf 10 400 Td (" + b"ab " * (chars // 3) + b") Tj ET")


def nested_forms(depth: int, fanout: int) -> bytes:
    """Form XObjects that each draw the next ``fanout`` times, ``depth`` deep, the last one
    a line of text: fanout**depth text runs from a few hundred bytes."""
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 4 0 R "
        b">> /XObject << /X 6 0 R >> >> /Contents 5 0 R >>",
        HELVETICA,
        stream(b"/X Do"),
    ]
    for level in range(depth):
        number = 6 + level
        resources = b"<< /Font << /F1 4 0 R >> /XObject << /X %d 0 R >> >>" % (number + 1)
        body = b" ".join([b"/X Do"] * fanout)
        if level == depth - 1:
            resources, body = b"<< /Font << /F1 4 0 R >> >>", b"BT /F1 9 Tf 72 700 Td (leaf) Tj ET"
        objects.append(
            stream(
                body,
                extra=b"/Type /XObject /Subtype /Form /BBox [0 0 612 792] /Resources " + resources,
            )
        )
    return build(objects)


def deep_array_page() -> bytes:
    """A page dictionary holding an array nested 100,000 deep."""
    deep = b"[" * 100_000 + b"]" * 100_000
    return build(
        [
            b"<< /Type /Catalog /Pages 2 0 R >>",
            b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
            b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 4 "
            b"0 R >> >> /Contents 5 0 R /Junk " + deep + b" >>",
            HELVETICA,
            stream(text_page(3)),
        ]
    )


def deep_page_tree(depth: int) -> bytes:
    """A page tree ``depth`` levels of /Pages deep before its one page."""
    objects = [b"<< /Type /Catalog /Pages 2 0 R >>"]
    for level in range(depth):
        number = 2 + level
        parent = b"/Parent %d 0 R " % (number - 1) if level else b""
        objects.append(b"<< /Type /Pages %s/Kids [%d 0 R] /Count 1 >>" % (parent, number + 1))
    page = 2 + depth
    objects.append(
        b"<< /Type /Page /Parent %d 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 %d 0 R"
        b" >> >> /Contents %d 0 R >>" % (page - 1, page + 1, page + 2)
    )
    objects += [HELVETICA, stream(text_page(3))]
    return build(objects)


def page_tree_cycle() -> bytes:
    """A /Pages node that lists itself among its kids."""
    return build(
        [
            b"<< /Type /Catalog /Pages 2 0 R >>",
            b"<< /Type /Pages /Kids [2 0 R 3 0 R] /Count 2 >>",
            b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 4 0 R"
            b" >> >> /Contents 5 0 R >>",
            HELVETICA,
            stream(text_page(3)),
        ]
    )


def flate_bomb(megabytes: int) -> bytes:
    """A page whose content stream inflates to ``megabytes`` MB of spaces, then text."""
    packer = zlib.compressobj(1)
    block = b" " * (1 << 20)
    data = b"".join(packer.compress(block) for _ in range(megabytes))
    data += packer.compress(text_page(2)) + packer.flush()
    return pages_pdf([deflated(data)])


def huge_image(side: int) -> bytes:
    """A page that draws one gray image of ``side`` x ``side`` pixels (all black), no text."""
    packer = zlib.compressobj(1)
    row = bytes(side)
    data = b"".join(packer.compress(row) for _ in range(side)) + packer.flush()
    image = deflated(
        data,
        extra=b"/Type /XObject /Subtype /Image /Width %d /Height %d /ColorSpace /DeviceGray "
        b"/BitsPerComponent 8" % (side, side),
    )
    return build(
        [
            b"<< /Type /Catalog /Pages 2 0 R >>",
            b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
            b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /XObject << "
            b"/Im 5 0 R >> >> /Contents 4 0 R >>",
            stream(b"q 612 0 0 792 0 0 cm /Im Do Q"),
            image,
        ]
    )


def huge_page() -> bytes:
    """A page 200 inches square (the largest PDF allows) with a line of text."""
    return one_page(text_page(3), mediabox=b"[0 0 14400 14400]")


def absurd_page() -> bytes:
    """A MediaBox of a billion points."""
    return one_page(text_page(3), mediabox=b"[0 0 1000000000 1000000000]")


def blank_pages(count: int) -> bytes:
    return pages_pdf([stream(b"")] * count)


def many_text_pages(count: int) -> bytes:
    return pages_pdf([stream(text_page(40))] * count)


def bad_xref() -> bytes:
    """Every offset in the cross-reference table is wrong; the objects are intact."""
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 4 0 R"
        b" >> >> /Contents 5 0 R >>",
        HELVETICA,
        stream(text_page(5)),
    ]
    return build(objects, xref_shift=37)


def broken_stream() -> bytes:
    """Page 1's content stream is corrupt Flate data; page 2 is fine."""
    good = zlib.compress(text_page(5))
    broken = good[:10] + bytes(range(200, 250)) + good[60:]
    return pages_pdf([deflated(broken), stream(text_page(5))])


def no_text() -> bytes:
    """A page that only draws a rectangle."""
    return one_page(b"0.5 g 72 72 200 200 re f")


def truncated() -> bytes:
    """Half of a readable three-page PDF."""
    data = pages_pdf([stream(text_page(30)) for _ in range(3)])
    return data[: len(data) // 2]


@dataclass
class Case:
    """A hostile PDF and what must happen to it."""

    name: str
    make: Callable[[], bytes]
    expect: str  # "ok" or an error code
    match: str = ""  # a substring of the message (or of the warning for "ok")
    limits: dict[str, Any] = field(default_factory=dict)  # PdfLimits fields to override
    seconds: float = 30.0  # bound on CPU seconds (this process and its children), generous
    memory_mb: float = 1024.0  # peak resident memory, parent + parser process
    ocr: bool = False  # parse with the real tesseract


CASES: list[Case] = [
    Case(
        "text bomb, 3M runs",
        lambda: text_bomb(3_000_000),
        "parse_error",
        "PRIORIS_MCP_PDF_MAX_PAGE_TEXT_RUNS",
    ),
    Case(
        "text bomb, 3M runs, counting off",
        lambda: text_bomb(3_000_000),
        "parse_error",
        "parse time limit",
        limits={
            "max_page_text_runs": 10**9,
            "max_page_operations": 10**9,
            "time_limit_seconds": 5.0,
        },
        seconds=20.0,
    ),
    Case(
        "90k runs, 32 MB memory limit",
        lambda: text_bomb(90_000),
        "parse_error",
        "PRIORIS_MCP_PDF_MEMORY_LIMIT_BYTES",
        limits={"memory_limit_bytes": 32 << 20},
    ),
    Case(
        "drawing bomb, 400k segments",
        lambda: drawing_bomb(400_000),
        "parse_error",
        "PRIORIS_MCP_PDF_MAX_PAGE_OPERATIONS",
    ),
    Case(
        "one run of 300k characters",
        lambda: long_string_page(300_000),
        "parse_error",
        "PRIORIS_MCP_PDF_MAX_PAGE_CHARS",
    ),
    Case(
        "forms nested 8 deep, 10 each",
        lambda: nested_forms(8, 10),
        "parse_error",
        "PRIORIS_MCP_PDF_MAX_PAGE_TEXT_RUNS",
    ),
    Case("array nested 100k deep", deep_array_page, "parse_error", "no text", ocr=True),
    Case("page tree 5,000 deep", lambda: deep_page_tree(5000), "ok", ""),
    Case("page tree cycle", page_tree_cycle, "parse_error", "cycle in page tree"),
    Case("flate bomb, 512 MB of spaces", lambda: flate_bomb(512), "ok", "", seconds=120.0),
    Case("page 200 inches square", huge_page, "ok", ""),
    Case(
        "image 30,000 pixels square", lambda: huge_image(30_000), "parse_error", "no text", ocr=True
    ),
    Case("page a billion points wide", absurd_page, "parse_error", "no text", ocr=True),
    Case(
        "2,001 pages",
        lambda: blank_pages(2001),
        "file_too_large",
        "PRIORIS_MCP_PDF_MAX_PAGES",
    ),
    Case("2,000 blank pages", lambda: blank_pages(2000), "parse_error", "no text", seconds=60.0),
    Case(
        "300 pages of text, document text limit",
        lambda: many_text_pages(300),
        "parse_error",
        "PRIORIS_MCP_PDF_MAX_TEXT_CHARS",
        limits={"max_text_chars": 500_000},
        seconds=60.0,
    ),
    Case("bad xref table", bad_xref, "ok", "damaged"),
    Case("broken content stream", broken_stream, "ok", ""),
    Case("truncated download", truncated, "ok", "damaged"),
    Case("no text at all", no_text, "parse_error", "no text", ocr=True),
]


def case_named(name: str) -> Case:
    return next(case for case in CASES if case.name == name)


# -- measuring one file in a fresh process -------------------------------------------------
def run_case(case: Case, folder: Path) -> dict[str, Any]:
    """Write the case's PDF into ``folder`` and parse it in a fresh process (see module doc)."""
    path = folder / (case.name.replace(" ", "_").replace(",", "") + ".pdf")
    path.write_bytes(case.make())
    return measure_file(path, case.limits, ocr=case.ocr)


def measure_file(
    path: Path,
    limits: dict[str, Any],
    *,
    ocr: bool = False,
    src: Path | None = None,
    cold: bool = False,
) -> dict[str, Any]:
    """Parse ``path`` in a fresh process (``src``: another checkout's code; ``cold``: the
    parser process start counts in the time) and return what it reported."""
    env = dict(os.environ)
    code = str(src or Path(__file__).resolve().parents[1] / "src")
    env["PYTHONPATH"] = code + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    flags = (["--ocr"] if ocr else []) + (["--cold"] if cold else [])
    done = subprocess.run(
        [sys.executable, str(Path(__file__).resolve()), str(path), json.dumps(limits), *flags],
        capture_output=True,
        text=True,
        env=env,
        timeout=1800,  # the old code on the text bomb (--src) takes 10 minutes loaded
        check=False,
    )
    lines = [line for line in done.stdout.splitlines() if line.startswith("{")]
    if not lines:
        raise AssertionError(f"the runner failed (exit {done.returncode}): {done.stderr[-2000:]}")
    result: dict[str, Any] = json.loads(lines[-1])
    result["size_bytes"] = path.stat().st_size
    return result


def _own_peak_mb() -> float:
    """Peak resident memory of this process image (VmHWM; ru_maxrss would include the
    peak of whatever process started this one, which Linux carries across exec)."""
    try:
        status = Path("/proc/self/status").read_text()
    except OSError:
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    kilobytes = next(line.split()[1] for line in status.splitlines() if line.startswith("VmHWM"))
    return int(kilobytes) / 1024


def _cpu_seconds() -> float:
    """CPU seconds used so far by this process and its reaped children (the parser process,
    tesseract runs): the work a parse cost, which a loaded machine does not inflate as it
    does wall-clock time. The warm parser started before the clock counts in it: it is the
    process that parses."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def _children_peak_mb() -> float:
    """Peak resident memory of the largest reaped child (the parser, or a tesseract run)."""
    return resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024


def main(argv: Iterable[str]) -> None:
    args = list(argv)
    from prioris.errors import PriorisError
    from prioris.ingest.pdf.reader import extract_pdf

    path, overrides = Path(args[0]), json.loads(args[1])
    ocr = None
    if "--ocr" in args:
        from prioris.ingest.ocr import TesseractOcr

        ocr = TesseractOcr("eng")
    try:
        from prioris.ingest.pdf.process import pdf_process, shutdown_idle
        from prioris.ingest.pdf.reader import PdfLimits
    except ImportError:  # an older checkout (--src): parsing in-process, one time limit
        kwargs: dict[str, Any] = {"time_limit_seconds": overrides.get("time_limit_seconds", 300)}
        pdf_process = shutdown_idle = None  # type: ignore[assignment]
    else:
        kwargs = {"limits": PdfLimits(**overrides)}
    data = path.read_bytes()
    spawn = 0.0
    if pdf_process is not None and "--cold" not in args:
        started = time.monotonic()
        with pdf_process():  # a parser process waiting, as in a running server or a batch
            spawn = time.monotonic() - started
    started = time.monotonic()
    cpu_started = _cpu_seconds()
    outcome: dict[str, Any]
    try:
        content = extract_pdf(data, ocr=ocr, **kwargs)
        outcome = {
            "outcome": "ok",
            "message": "; ".join(content.warnings),
            "pages": len(content.pages),
            "chars": sum(len(page.text) for page in content.pages),
        }
    except PriorisError as exc:
        outcome = {"outcome": exc.code, "message": exc.message}
    seconds = time.monotonic() - started
    if shutdown_idle is not None:
        shutdown_idle()  # reap the parser so that its peak memory and its CPU time count
    outcome.update(
        seconds=round(seconds, 2),
        cpu_seconds=round(_cpu_seconds() - cpu_started, 2),
        spawn_seconds=round(spawn, 2),
        parent_mb=round(_own_peak_mb(), 1),
        parser_mb=round(_children_peak_mb(), 1),
    )
    print(json.dumps(outcome))


if __name__ == "__main__":
    main(sys.argv[1:])
