"""Generate the hostile packages of tests/bad/import/ (what `lmsexport import` must refuse), byte for
byte the same on every run.

    python tests/bad/import/make_cases.py [OUT_DIR]    # default: this folder

Each package is a small QTI 2.1 or QTI 1.2 package broken one way (the name says how). Zips are
written with a fixed timestamp; where zipfile cannot produce the hostile form (a symlink mode), the
entry's attributes are set by hand. The zip bomb stays small on disk: 10 MiB of spaces inside an
XML element deflate to about 10 KiB. The plain files beside them (.xml, .gift) are written by hand.
"""

from __future__ import annotations

import io
import stat
import sys
import zipfile
from pathlib import Path

DATE = (1980, 1, 1, 0, 0, 0)
QTI = "http://www.imsglobal.org/xsd/imsqti_v2p1"
ITEM = f"""<?xml version="1.0" encoding="UTF-8"?>
<assessmentItem xmlns="{QTI}" identifier="q1" title="Q1" adaptive="false" timeDependent="false">
  <responseDeclaration identifier="RESPONSE" cardinality="single" baseType="identifier">
    <correctResponse><value>A</value></correctResponse>
  </responseDeclaration>
  <itemBody>
    <choiceInteraction responseIdentifier="RESPONSE" shuffle="false" maxChoices="1">
      <prompt>2 + 2?</prompt>
      <simpleChoice identifier="A">4</simpleChoice>
      <simpleChoice identifier="B">5</simpleChoice>
    </choiceInteraction>
  </itemBody>
</assessmentItem>
"""
MANIFEST = """<?xml version="1.0" encoding="UTF-8"?>
<manifest xmlns="http://www.imsglobal.org/xsd/imscp_v1p1" identifier="m1">
  <metadata><schema>QTIv2.1 Package</schema><schemaversion>1.0.0</schemaversion></metadata>
  <organizations/>
  <resources>
    <resource identifier="r1" type="imsqti_item_xmlv2p1" href="HREF"><file href="HREF"/></resource>
  </resources>
</manifest>
"""
LAUGHS = "".join(f'<!ENTITY lol{i} "{("&lol" + str(i - 1) + ";") * 10 if i else "lol"}">' for i in range(10))
QTI12 = f"""<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE questestinterop [{LAUGHS}]>
<questestinterop><assessment ident="a1" title="&lol9;"><section ident="root_section"/></assessment>
</questestinterop>
"""
QTI12_MANIFEST = """<?xml version="1.0" encoding="UTF-8"?>
<manifest xmlns="http://www.imsglobal.org/xsd/imscp_v1p1" identifier="m1"><organizations/><resources>
  <resource identifier="r1" type="imsqti_xmlv1p2"><file href="a1/a1.xml"/></resource>
</resources></manifest>
"""


def _zip(members: list[tuple[str, bytes]], symlinks: tuple[str, ...] = ()) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, data in members:
            info = zipfile.ZipInfo(name, DATE)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.create_system = 3
            mode = (stat.S_IFLNK | 0o777) if name in symlinks else (stat.S_IFREG | 0o644)
            info.external_attr = mode << 16
            zf.writestr(info, data, compresslevel=9)
    return buf.getvalue()


def _package(
    item: str = ITEM, href: str = "items/q1.xml", extra: list[tuple[str, bytes]] | None = None
) -> bytes:
    members = [("imsmanifest.xml", MANIFEST.replace("HREF", href).encode()), ("items/q1.xml", item.encode())]
    return _zip(members + (extra or []))


CASES = {
    "qti21-zip-bomb.zip": lambda: _zip(
        [
            ("imsmanifest.xml", MANIFEST.replace("HREF", "items/q1.xml").encode()),
            ("items/q1.xml", ITEM.replace("2 + 2?", "2 + 2?" + " " * (10 * 1024 * 1024)).encode()),
        ]
    ),
    "qti21-zip-slip.zip": lambda: _package(extra=[("../../evil.xml", ITEM.encode())]),
    "qti21-symlink.zip": lambda: _zip(
        [
            ("imsmanifest.xml", MANIFEST.replace("HREF", "items/q1.xml").encode()),
            ("items/q1.xml", ITEM.replace("2 + 2?", '2 + 2? <img src="passwd.png" alt="x"/>').encode()),
            ("items/passwd.png", b"/etc/passwd"),
        ],
        symlinks=("items/passwd.png",),
    ),
    "qti21-xxe.zip": lambda: _package(
        ITEM.replace(
            '<?xml version="1.0" encoding="UTF-8"?>\n',
            '<?xml version="1.0"?>\n<!DOCTYPE assessmentItem [<!ENTITY x SYSTEM "file:///etc/passwd">]>\n',
        ).replace("2 + 2?", "&x;")
    ),
    "qti21-href-escape.zip": lambda: _package(href="../../../etc/passwd"),
    "qti21-not-well-formed.zip": lambda: _package(ITEM.replace("</itemBody>", "</itemBod>")),
    "qti21-empty.zip": lambda: _zip(
        [
            (
                "imsmanifest.xml",
                MANIFEST.replace("imsqti_item_xmlv2p1", "webcontent").replace("HREF", "a.txt").encode(),
            ),
            ("a.txt", b"no questions"),
        ]
    ),
    "qti12-billion-laughs.zip": lambda: _zip(
        [("imsmanifest.xml", QTI12_MANIFEST.encode()), ("a1/a1.xml", QTI12.encode())]
    ),
}


def main(out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    for name, make in CASES.items():
        (out / name).write_bytes(make())


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).resolve().parent)
