"""Any valid bank (tests/strategies.py) builds in every format: every QTI package validates as
an untrusted package would, the GIFT and Moodle XML round trips hold, and the HTML shows every
text as text. Banks with rich texts and assessments build valid QTI 2.1 packages."""

from __future__ import annotations

import io
import zipfile

import lxml.html
from hypothesis import HealthCheck, given, settings
from strategies import banks, rich_banks_with_assessments

from lmsexport.build import build, gift_round_trip, moodlexml_round_trip
from lmsexport.model import Bank
from lmsexport.validate import validate_package


@settings(
    max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large]
)
@given(banks())
def test_any_bank_builds_validates_and_round_trips(bank: Bank) -> None:
    out = build(bank, ["qti21", "gift", "moodlexml", "html"])  # raises if any XML fails its XSD
    for quiz in bank.quizzes:
        package = out.files[f"qti21/{quiz.id}.zip"]
        problems = [d.format() for d in validate_package(package, f"{quiz.id}.zip")]
        assert problems == []
    assert [d.format() for d in gift_round_trip(bank, out)] == []
    assert [d.format() for d in moodlexml_round_trip(bank, out)] == []
    for quiz in bank.quizzes:
        page = lxml.html.fromstring(out.files[f"html/{quiz.id}.html"])
        # Only the page's own scripts, whatever the texts hold.
        assert len(page.xpath("//script")) == 2
        assert not [a for el in page.iter() for a in el.attrib if a.lower().startswith("on")]
        legends = [e.text_content() for e in page.iter("legend")]
        assert legends == [q.stem for q in quiz.questions]
        assert page.findtext(".//title") == quiz.title


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large]
)
@given(rich_banks_with_assessments())
def test_any_rich_bank_with_assessments_builds_valid_qti_packages(bank: Bank) -> None:
    """Rich texts (math, code, lists, tables, images) and assessments: every QTI package is valid
    as an untrusted package, and a question is the same item in every package that holds it."""
    out = build(bank, ["qti21"])  # raises if any XML fails its XSD
    assert sorted(out.files) == sorted(f"qti21/{t.id}.zip" for t in (*bank.quizzes, *bank.assessments))
    items: dict[str, bytes] = {}
    for name, package in sorted(out.files.items()):
        assert [d.format() for d in validate_package(package, name)] == []
        with zipfile.ZipFile(io.BytesIO(package)) as zf:
            for member in zf.namelist():
                if member.startswith("items/"):
                    data = zf.read(member)
                    assert items.setdefault(member, data) == data, (name, member)
