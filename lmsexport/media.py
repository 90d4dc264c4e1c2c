"""Image files of the bank: the type sniffed from the bytes, the size from the header, SVG made safe.

Images are untrusted input like the YAML around them. Nothing here decodes pixels: the type
and the intrinsic size come from a few header bytes (PNG IHDR, GIF logical screen, JPEG SOF,
WebP VP8/VP8L/VP8X), so a decompression bomb costs nothing to look at, and its stated size is
refused by MAX_PIXELS. SVG is XML that a browser would run: it is parsed with no network, no
DTD and no entities, and refused when it could run a script or fetch anything.
"""

from __future__ import annotations

import io
import re
from dataclasses import dataclass, replace

from .model import MEDIA_EXTENSIONS, Media

MAX_IMAGE_BYTES = 2 * 1024 * 1024
"""Largest image file (2 MiB): a diagram or a screenshot fits; a photo should be scaled down."""
MAX_PACKAGE_MEDIA_BYTES = 64 * 1024 * 1024
"""Most image bytes one package (a quiz's or an assessment's zip, each image counted once) may
carry (64 MiB, 32 images at the per-image limit): a package must stay an upload an LMS takes in
one go, and far below what lmsexport validate accepts of a package (validate.MAX_TOTAL_BYTES)."""
MAX_PIXELS = 40_000_000
"""Largest width x height an image may state (a 10,000 x 4,000 screenshot fits)."""
MAX_SIDE = 20_000
"""Largest width or height in pixels."""

EXTENSIONS: dict[str, tuple[str, ...]] = {
    "image/png": (".png",),
    "image/jpeg": (".jpg", ".jpeg"),
    "image/gif": (".gif",),
    "image/webp": (".webp",),
    "image/svg+xml": (".svg",),
}
"""What each sniffed type may be called; a file whose name says otherwise is refused."""
assert EXTENSIONS.keys() == MEDIA_EXTENSIONS.keys()

SVG_NS = "http://www.w3.org/2000/svg"
XLINK_HREF = "{http://www.w3.org/1999/xlink}href"
_SVG_FORBIDDEN = frozenset(
    {"script", "foreignObject", "iframe", "embed", "object", "audio", "video", "handler"}
)
"""Elements that run code or embed another document."""
_CSS_URL = re.compile(r"url\s*\(\s*['\"]?\s*(?!#)", re.I)
"""A CSS url() that is not a reference to a fragment of the same document."""
_CSS_IMPORT = re.compile(r"@import", re.I)
_LENGTH = re.compile(r"\s*([0-9]*\.?[0-9]+)\s*(px)?\s*\Z")


class MediaError(ValueError):
    """An image file lmsexport refuses; the message says why."""


@dataclass(frozen=True)
class Sniffed:
    mime: str
    width: int
    height: int


def sniff(data: bytes) -> Sniffed:
    """The type and intrinsic size of an image from its bytes. Raises MediaError."""
    if len(data) > MAX_IMAGE_BYTES:
        raise MediaError(f"the image is {len(data):,} bytes; the limit is {MAX_IMAGE_BYTES:,}")
    mime = _raster_type(data)
    if mime is not None:
        import imagesize

        width, height = imagesize.get(io.BytesIO(data))
        if width <= 0 or height <= 0:
            raise MediaError(f"a broken {mime.removeprefix('image/').upper()} file (no size in its header)")
        found = Sniffed(mime, width, height)
    elif _looks_like_svg(data):
        found = _svg(data)
    else:
        raise MediaError("not a PNG, JPEG, GIF, WebP or SVG image (judged by its bytes)")
    if found.width > MAX_SIDE or found.height > MAX_SIDE or found.width * found.height > MAX_PIXELS:
        raise MediaError(
            f"the image states a size of {found.width} x {found.height} pixels; "
            f"the limit is {MAX_SIDE:,} a side and {MAX_PIXELS:,} pixels"
        )
    return found


def _raster_type(data: bytes) -> str | None:
    """The type of a raster image by its magic bytes (the name is never trusted)."""
    if data.startswith(b"\x89PNG\r\n\x1a\n"):
        return "image/png"
    if data.startswith(b"\xff\xd8\xff"):
        return "image/jpeg"
    if data[:6] in (b"GIF87a", b"GIF89a"):
        return "image/gif"
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "image/webp"
    return None


def _looks_like_svg(data: bytes) -> bool:
    head = data[:1024].lstrip(b"\xef\xbb\xbf \t\r\n")
    return head.startswith((b"<?xml", b"<svg", b"<!--")) and b"<svg" in data[:4096]


def _svg(data: bytes) -> Sniffed:
    """Parse an SVG safely and refuse anything that could run or fetch; size from width/height or viewBox."""
    from lxml import etree

    if b"<!DOCTYPE" in data or b"<!ENTITY" in data:
        raise MediaError("the SVG has a DOCTYPE (entities could expand or load files); remove it")
    parser = etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False, huge_tree=False)
    try:
        root = etree.fromstring(data, parser)
    except etree.XMLSyntaxError as e:
        raise MediaError(f"the SVG is not well-formed XML: {e.msg}") from None
    if root.tag != f"{{{SVG_NS}}}svg":
        raise MediaError("the file is not an SVG image (its root is not <svg> in the SVG namespace)")
    for el in root.iter():
        if not isinstance(el.tag, str):
            if isinstance(el, etree._ProcessingInstruction):
                raise MediaError("the SVG has a processing instruction (it could load a stylesheet)")
            continue
        local = etree.QName(el).localname
        if local in _SVG_FORBIDDEN:
            raise MediaError(f"the SVG has a <{local}> element (it could run code or embed a document)")
        for name, value in el.attrib.items():
            attr = etree.QName(name).localname
            if attr.lower().startswith("on"):
                raise MediaError(f"the SVG has an event attribute {attr}= on <{local}> (it runs a script)")
            if attr == "href" and not value.strip().startswith("#"):
                raise MediaError(
                    f"the SVG's <{local}> refers to '{value[:60]}'; "
                    "only references inside the file (#id) are allowed"
                )
            if attr == "attributeName" and value.split(":")[-1] == "href":
                raise MediaError(f"the SVG's <{local}> animates a link (it could point it at a script)")
            if attr == "style" and (_CSS_URL.search(value) or _CSS_IMPORT.search(value)):
                raise MediaError(f"the SVG's <{local}> style loads an external resource")
        if local == "style" and el.text and (_CSS_URL.search(el.text) or _CSS_IMPORT.search(el.text)):
            raise MediaError("the SVG's <style> loads an external resource (url() or @import)")
    width, height = _svg_size(root)
    return Sniffed("image/svg+xml", width, height)


def _svg_size(root) -> tuple[int, int]:  # type: ignore[no-untyped-def]
    """CSS pixels from width/height (plain or px numbers), else from the viewBox; 0 when unknown."""
    w, h = _length(root.get("width")), _length(root.get("height"))
    box = (root.get("viewBox") or "").replace(",", " ").split()
    if len(box) == 4:
        try:
            bw, bh = float(box[2]), float(box[3])
        except ValueError:
            bw = bh = 0.0
        if w is None and h is None:
            w, h = bw, bh
        elif w is None and h and bh:
            w = h * bw / bh
        elif h is None and w and bw:
            h = w * bh / bw
    return round(w or 0), round(h or 0)


def _length(value: str | None) -> float | None:
    if value is None:
        return None
    m = _LENGTH.match(value)
    return float(m.group(1)) if m else None


def extension_matches(name: str, mime: str) -> bool:
    return name.lower().endswith(EXTENSIONS[mime])


def media_from_bytes(data: bytes, name: str = "") -> Media:
    """An image file read from another format (a Moodle XML `<file>`, a data: URI), sniffed and
    checked as the loader checks the bank's image files. Raises MediaError.

    ``name`` is what messages call it; the content-addressed file name when not given.
    """
    found = sniff(data)
    media = Media(name, data, found.mime, found.width, found.height)
    return media if name else replace(media, name=media.filename)


MAX_BASE64_CHARS = (MAX_IMAGE_BYTES + 2) // 3 * 4
"""The base64 text of the largest image file: anything longer is refused before it is decoded."""


def decode_base64(text: str) -> bytes:
    """Base64 as formats embed it (white space allowed, as Moodle's base64_decode() takes it),
    strictly: raises MediaError for a text that is not base64 or is longer than an image may be."""
    import base64
    import binascii

    compact = "".join(text.split())
    if len(compact) > MAX_BASE64_CHARS:
        raise MediaError(
            f"the file is about {len(compact) * 3 // 4:,} bytes; "
            f"the limit for an image is {MAX_IMAGE_BYTES:,}"
        )
    try:
        return base64.b64decode(compact, validate=True)
    except (binascii.Error, ValueError):
        raise MediaError("its base64 data cannot be decoded") from None


_DATA_URI = re.compile(r"data:([^,;]*)((?:;[^,;]*)*),(.*)\Z", re.DOTALL | re.IGNORECASE)


def media_from_data_uri(src: str) -> Media | None:
    """The image of a `data:` URI, sniffed from its bytes (the stated type is not trusted); None
    for any other src. Raises MediaError for data that is not an image lmsexport accepts."""
    import urllib.parse

    m = _DATA_URI.match(src.strip())
    if m is None:
        return None
    params = [p.strip().lower() for p in m.group(2).split(";") if p.strip()]
    if "base64" in params:
        data = decode_base64(m.group(3))
    else:
        data = urllib.parse.unquote_to_bytes(m.group(3))
    return media_from_bytes(data)


def data_uri(media: Media) -> str:
    """An image as a `data:` URI (for texts that cannot carry files); media_from_data_uri() reads it."""
    import base64

    return f"data:{media.mime};base64,{base64.b64encode(media.data).decode('ascii')}"
