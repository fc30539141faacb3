"""The PDF parser process: every MuPDF call on untrusted bytes runs here, not in Prioris.

MuPDF holds the GIL and cannot be interrupted inside a page, and a hostile page can make it
allocate gigabytes or crash. So :mod:`prioris.ingest.pdf.process` starts this module as a
child process (``python -m prioris.ingest.pdf.worker``) and talks to it over its stdin and
stdout; when a deadline passes the parent kills it, and a crash or an exhausted memory
limit is one failed file, never a dead server.

The protocol is a sequence of frames, each ``>II`` (header length, payload length), a JSON
header, then raw payload bytes (the PDF going in, a PNG coming back). Requests are
``open`` (limits in the header, the PDF as payload), ``page`` (the text layer of one page
after its cost is checked), ``render`` (a page as a grayscale PNG for OCR) and ``close``.
A reply is ``{"ok": ...}`` or ``{"error": {"code", "message"}, "fatal": bool}``; after a
fatal error (memory exhausted) the parent discards the process.

Memory is bounded with ``RLIMIT_AS``: before each document the process allows itself its
current address space plus the configured limit, so MuPDF's allocations fail cleanly
instead of swapping the machine (Linux; other systems ignore the limit, the time limit
still holds).
"""

from __future__ import annotations

import json
import os
import struct
import sys
from dataclasses import astuple
from typing import Any

FRAME = struct.Struct(">II")
NO_PAYLOAD = 0xFFFFFFFF


# -- framing (used by both sides) ---------------------------------------------------------
def encode_frame(header: dict[str, Any], payload: bytes | None = None) -> list[bytes]:
    """The buffers that make up one frame (written with one ``os.write`` each)."""
    head = json.dumps(header, ensure_ascii=False).encode("utf-8")
    size = NO_PAYLOAD if payload is None else len(payload)
    return [FRAME.pack(len(head), size), head, payload or b""]


def write_frame(fd: int, header: dict[str, Any], payload: bytes | None = None) -> None:
    for buffer in encode_frame(header, payload):
        view = memoryview(buffer)
        while view:
            written = os.write(fd, view)
            view = view[written:]


def _read_exact(fd: int, size: int) -> bytes | None:
    chunks: list[bytes] = []
    remaining = size
    while remaining:
        chunk = os.read(fd, min(remaining, 1 << 20))
        if not chunk:
            return None
        chunks.append(chunk)
        remaining -= len(chunk)
    return b"".join(chunks)


def read_frame(fd: int) -> tuple[dict[str, Any], bytes | None] | None:
    """The next frame from a blocking descriptor, or None at end of file."""
    prefix = _read_exact(fd, FRAME.size)
    if prefix is None:
        return None
    head_size, payload_size = FRAME.unpack(prefix)
    head = _read_exact(fd, head_size)
    if head is None:
        return None
    payload = None
    if payload_size != NO_PAYLOAD:
        payload = _read_exact(fd, payload_size)
        if payload is None:
            return None
    return json.loads(head), payload


# -- the parser ---------------------------------------------------------------------------
def _address_space() -> int:
    """This process's virtual memory size in bytes (0 when it cannot be read)."""
    try:
        with open("/proc/self/statm") as handle:
            return int(handle.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return 0


def _resident() -> int:
    try:
        with open("/proc/self/statm") as handle:
            return int(handle.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return 0


def _limit_memory(extra_bytes: int) -> None:
    try:
        import resource
    except ImportError:  # pragma: no cover - not a POSIX system
        return
    current = _address_space()
    if not current:
        return
    _soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    wanted = current + extra_bytes
    if hard != resource.RLIM_INFINITY:
        wanted = min(wanted, hard)
    resource.setrlimit(resource.RLIMIT_AS, (wanted, hard))


class _Refused(Exception):
    def __init__(self, code: str, message: str, *, fatal: bool = False) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.fatal = fatal


def _is_memory_error(exc: BaseException | None) -> bool:
    """Whether ``exc``, or an exception it was raised from, is an allocation failure."""
    seen = 0
    while exc is not None and seen < 10:
        if isinstance(exc, MemoryError):
            return True
        text = str(exc).lower()
        if "malloc" in text or "out of memory" in text or "cannot allocate" in text:
            return True
        exc = exc.__cause__ or exc.__context__
        seen += 1
    return False


class Parser:
    """One open document at a time, driven by requests from the parent."""

    def __init__(self) -> None:
        # pymupdf 2.0 imports its ONNX layout analyser and pymupdf4llm (with onnxruntime and
        # its threads) on import, seconds and ~50 MB, though only Page.get_layout and
        # to_markdown use them, which we never call: keep them out of this process.
        for optional in ("pymupdf.layout", "pymupdf4llm"):
            sys.modules.setdefault(optional, None)  # type: ignore[arg-type]
        import resource  # noqa: F401 - every import happens before the memory limit:
        import zlib  # noqa: F401 - loading a module under it can abort the process

        import pymupdf

        from prioris.ingest.header import layout as header_layout
        from prioris.ingest.pdf import budget as pdf_budget
        from prioris.ingest.pdf import layout as pdf_layout

        self.pymupdf = pymupdf
        self.budget = pdf_budget
        self.layout = pdf_layout
        self.header_layout = header_layout
        pymupdf.TOOLS.mupdf_display_errors(False)
        pymupdf.TOOLS.mupdf_display_warnings(False)
        self.doc: Any = None
        self.limits: Any = None
        self.memory_limit = 0
        self._warm_up()

    def _warm_up(self) -> None:
        """Run every request once on a tiny PDF: whatever MuPDF and pymupdf load lazily
        (modules, libraries with thread-local data) is loaded now, before any memory
        limit, where a failed load would abort the process instead of raising."""
        doc = self.pymupdf.open()
        page = doc.new_page(width=200, height=200)
        page.insert_text((20, 50), "warm up", fontsize=12)
        self.doc = self.pymupdf.open(stream=doc.tobytes(), filetype="pdf")
        doc.close()
        self.limits = self.budget.PageLimits()
        try:
            self.page(0)
            self.header(0)
            self._image_cover(self.doc[0])
            self.render(0, 72, 200)
        finally:
            self.close()

    # requests -----------------------------------------------------------------------------
    def handle(self, header: dict[str, Any], payload: bytes | None) -> tuple[dict, bytes | None]:
        op = header.get("op")
        try:
            if op == "open":
                return {"ok": self.open(header, payload or b"")}, None
            if op == "page":
                return {"ok": self.page(int(header["index"]))}, None
            if op == "header":
                return {"ok": self.header(int(header["index"]))}, None
            if op == "render":
                png = self.render(int(header["index"]), header["dpi"], header["max_side"])
                return {"ok": png is not None}, png
            if op == "close":
                self.close()
                return {"ok": {"rss": _resident()}}, None
            return {"error": {"code": "parse_error", "message": f"unknown request {op!r}"}}, None
        except _Refused as exc:
            return {
                "error": {"code": exc.code, "message": exc.message},
                "fatal": exc.fatal,
            }, None
        except BaseException as exc:  # MuPDF raises many types; none may kill the loop
            if _is_memory_error(exc):
                limit_mb = self.memory_limit // (1 << 20)
                message = (
                    f"parsing the PDF needed more than the {limit_mb} MB memory limit "
                    "(PRIORIS_MCP_PDF_MEMORY_LIMIT_BYTES)"
                )
                return {"error": {"code": "parse_error", "message": message}, "fatal": True}, None
            where = f"page {int(header.get('index', 0)) + 1}" if op != "open" else "the PDF"
            return {
                "error": {"code": "parse_error", "message": f"could not read {where}: {exc}"},
                "page_error": op != "open",
            }, None

    def open(self, header: dict[str, Any], data: bytes) -> dict[str, Any]:
        self.close()
        self.memory_limit = int(header["memory_limit"])
        self.limits = self.budget.PageLimits(
            operations=int(header["max_page_operations"]),
            text_runs=int(header["max_page_text_runs"]),
            chars=int(header["max_page_chars"]),
        )
        _limit_memory(self.memory_limit)
        try:
            doc = self.pymupdf.open(stream=data, filetype="pdf")
        except Exception as exc:
            if _is_memory_error(exc):
                raise
            raise _Refused("parse_error", f"could not open the PDF: {exc}") from exc
        self.doc = doc
        if doc.needs_pass:
            raise _Refused(
                "parse_error",
                "the PDF is encrypted and needs a password; save an unprotected copy to ingest it",
            )
        count = doc.page_count
        if count < 1:
            raise _Refused("parse_error", "the PDF has no readable pages (broken page tree)")
        if count > int(header["max_pages"]):
            raise _Refused(
                "file_too_large",
                f"the PDF has {count} pages, over the limit of {header['max_pages']} "
                "(PRIORIS_MCP_PDF_MAX_PAGES)",
            )
        try:
            info = {key: (value or "") for key, value in (doc.metadata or {}).items()}
        except Exception:
            info = {}
        try:
            xmp = doc.get_xml_metadata() or ""
        except Exception:
            xmp = ""
        return {"pages": count, "repaired": bool(doc.is_repaired), "info": info, "xmp": xmp}

    def page(self, index: int) -> dict[str, Any]:
        page = self.doc[index]
        try:
            cost = self.budget.page_cost(self.doc, page, self.limits)
        except self.budget.PageLimitError as exc:
            raise _Refused("parse_error", exc.message) from exc
        layout = self.layout.read_layout(page)
        chars = sum(len(line.text) for block in layout.blocks for line in block.lines)
        if chars > self.limits.chars:
            raise _Refused(
                "parse_error",
                f"page {index + 1} has {chars} characters of text, over the limit of "
                f"{self.limits.chars} (PRIORIS_MCP_PDF_MAX_PAGE_CHARS)",
            )
        blank = cost.paints == 0 and page.first_annot is None
        cover = None
        if chars < int(SPARSE_TEXT_CHARS) and not blank:
            cover = self._image_cover(page)
        return {
            "height": layout.height,
            "blocks": [[astuple(line) for line in block.lines] for block in layout.blocks],
            "chars": chars,
            "blank": blank,
            "cover": cover,
            "repaired": bool(self.doc.is_repaired),
        }

    def header(self, index: int) -> dict[str, Any]:
        """The page's lines with fonts (:func:`prioris.ingest.header.layout.read_header_page`);
        only asked for pages whose cost was already checked by :meth:`page`."""
        found = self.header_layout.read_header_page(self.doc[index])
        return {
            "width": found.width,
            "height": found.height,
            "lines": [
                [
                    [astuple(span) for span in line.spans],
                    line.x0,
                    line.y0,
                    line.x1,
                    line.y1,
                    line.horizontal,
                    line.block,
                    line.baseline,
                ]
                for line in found.lines
            ],
        }

    def _image_cover(self, page: Any) -> float:
        """Share of the page covered by its largest image (a scan's signature)."""
        rect = page.rect
        area = abs(rect) or 1.0
        covered = max(
            (abs(self.pymupdf.Rect(info["bbox"]) & rect) for info in page.get_image_info()),
            default=0.0,
        )
        return covered / area

    def render(self, index: int, dpi: float, max_side: float) -> bytes | None:
        """The page as a grayscale PNG at ``dpi`` (longest side capped), None when blank."""
        pymupdf = self.pymupdf
        page = self.doc[index]
        rect = page.rect
        longest = max(rect.width, rect.height, 1.0)
        zoom = min(dpi / 72.0, max_side / longest)
        pix = page.get_pixmap(
            matrix=pymupdf.Matrix(zoom, zoom), colorspace=pymupdf.csGRAY, alpha=False
        )
        samples = pix.samples
        if not samples.strip(samples[:1]):  # one colour only (Pixmap.is_unicolor is slow)
            return None
        return pix.tobytes("png")

    def close(self) -> None:
        if self.doc is not None:
            try:
                self.doc.close()
            finally:
                self.doc = None


SPARSE_TEXT_CHARS = 300  # less text than this over a page-sized image: OCR it anyway


def main() -> None:
    """Serve requests on the original stdin/stdout until the parent closes the pipe."""
    proto_in, proto_out = os.dup(0), os.dup(1)
    devnull = os.open(os.devnull, os.O_RDWR)
    os.dup2(devnull, 0)  # nothing MuPDF or Python prints can corrupt the protocol
    os.dup2(devnull, 1)
    sys.stdout = open(os.devnull, "w")  # noqa: SIM115 - lives as long as the process
    parser = Parser()
    write_frame(proto_out, {"ready": True, "pid": os.getpid()})
    while True:
        frame = read_frame(proto_in)
        if frame is None:
            return
        header, payload = frame
        reply, data = parser.handle(header, payload)
        del payload
        write_frame(proto_out, reply, data)


if __name__ == "__main__":
    main()
