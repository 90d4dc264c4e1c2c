"""An essay's file attachments (Moodle's attachments, attachmentsrequired, filetypeslist and
maxbytes): the loader reads and checks them, the YAML writer writes them back, Moodle XML and
GIFT's metadata carry them, the other writers name them as lost, the HTML page says what to hand in."""

from __future__ import annotations

import pytest

from lmsexport.errors import Diagnostic, SourceError
from lmsexport.model import Bank, Essay, Question, Quiz, ResponseFormat
from lmsexport.readers import gift as gift_reader
from lmsexport.source import load_text
from lmsexport.writers import cc13, gift, qti12, qti21
from lmsexport.writers.html import render_quiz
from lmsexport.writers.source import write_quiz

HEADER = 'id: q\ntitle: "T"\nlang: en\nquestions:\n'
FILES = Essay(attachments=2, attachments_required=1, file_types=(".pdf", "image"), max_bytes=1048576)


def _quiz(body: Essay, lang: str = "en") -> Quiz:
    return Quiz("q", "T", lang, (Question(id="e1", stem="Upload your sketch", body=body),))


def _load(question: str) -> Question:
    quiz = load_text(HEADER + question, "t.yaml")
    assert isinstance(quiz, Quiz)
    return quiz.questions[0]


def _errors(question: str) -> list[tuple[str, str]]:
    with pytest.raises(SourceError) as e:
        load_text(HEADER + question, "t.yaml")
    return [(d.rule, d.message) for d in e.value.diagnostics]


def test_the_loader_reads_them_and_the_writer_writes_them_back() -> None:
    q = _load(
        """  - id: a
    type: essay
    stem: "s"
    response_format: none
    attachments: -1
    attachments_required: 2
    file_types: [".pdf", document, "application/pdf"]
    max_bytes: 2048
"""
    )
    assert q.body == Essay(
        ResponseFormat.NONE,
        attachments=-1,
        attachments_required=2,
        file_types=(".pdf", "document", "application/pdf"),
        max_bytes=2048,
    )
    text, lost = write_quiz(Quiz("q", "T", "en", (q,)))
    assert lost == [] and "attachments: -1" in text and "max_bytes: 2048" in text
    back = load_text(text, "w.yaml")
    assert isinstance(back, Quiz) and back.questions == (q,)


def test_defaults_are_not_written() -> None:
    text, _ = write_quiz(_quiz(Essay()))
    assert "attach" not in text and "file_types" not in text and "max_bytes" not in text


@pytest.mark.parametrize(
    ("keys", "rule", "message"),
    [
        ("attachments: -2", "source.bad-attachments", "attachments must be a whole number of files"),
        ("attachments: 1\n    attachments_required: 2", "source.bad-attachments", "is above attachments"),
        ("response_format: none", "source.bad-attachments", "the essay takes no attachments"),
        ("response_format: none\n    attachments: 1", "source.bad-attachments", "requires no attachments"),
        ("max_bytes: 10", "source.bad-attachments", "max_bytes is set, but"),
        ("attachments: 1\n    file_types: ['pdf files']", "source.bad-file-type", "file type 'pdf files'"),
    ],
)
def test_what_moodles_form_refuses_the_loader_refuses(keys: str, rule: str, message: str) -> None:
    errors = _errors(f'  - id: a\n    type: essay\n    stem: "s"\n    {keys}\n')
    assert [r for r, _ in errors] == [rule] and message in errors[0][1], errors


def test_unlimited_attachments_may_require_any_number() -> None:
    q = _load('  - id: a\n    type: essay\n    stem: "s"\n    attachments: -1\n    attachments_required: 5\n')
    assert q.body == Essay(attachments=-1, attachments_required=5)


def _rules(diags: list[Diagnostic]) -> set[str]:
    return {d.rule for d in diags}


def test_formats_without_files_name_the_loss_only_when_files_are_taken() -> None:
    for body, named in ((FILES, True), (Essay(), False), (Essay(lines=5), False)):
        quiz = _quiz(body)
        assert ("qti21.attachments-not-carried" in _rules(qti21.loss_warnings(quiz))) is named
        assert ("qti12.attachments-not-carried" in _rules(qti12.lossy_warnings(quiz))) is named
        bank = Bank((quiz,))
        assert ("cc13.attachments-not-carried" in _rules(cc13.lossy_warnings(bank))) is named
        assert ("cc11.attachments-not-carried" in _rules(cc13.lossy_warnings(bank, cc13.CC11))) is named
    (warning,) = [d for d in qti12.lossy_warnings(_quiz(FILES)) if d.rule == "qti12.attachments-not-carried"]
    assert "2 file(s); 1 required; .pdf, image; at most 1048576 bytes not carried" in warning.message


def test_gift_keeps_them_in_its_metadata_and_names_them() -> None:
    text, diags = gift.write_quiz(_quiz(FILES))
    (warning,) = [d for d in diags if d.rule == "gift.essay-options-not-carried"]
    assert "attachments, attachments required, file types, largest file" in warning.message
    back, _ = gift_reader.read_quiz(text, "q.gift.txt")
    assert back.questions[0].body == FILES


@pytest.mark.parametrize(
    ("lang", "note"),
    [
        ("en", "Files for this answer: up to 2 (.pdf, image). Hand them in as your teacher asks"),
        ("ur", "اس جواب کی فائلیں: زیادہ سے زیادہ 2 (.pdf, image)۔"),
    ],
)
def test_the_page_says_what_files_to_hand_in_and_takes_none(lang: str, note: str) -> None:
    page = render_quiz(_quiz(FILES, lang))
    assert note in page and 'type="file"' not in page
    assert 'aria-describedby="q1-files"' in page and '<p class="no-box files-note" id="q1-files"' in page
    unlimited = render_quiz(_quiz(Essay(ResponseFormat.NONE, attachments=-1, attachments_required=1)))
    assert "Files for this answer: as many as needed." in unlimited
    # Files only: the note stands where the box would be (no box, no second note).
    assert "<textarea" not in unlimited and "No typed answer here" not in unlimited


def test_a_page_without_attachments_is_as_before() -> None:
    assert "Files for this answer" not in render_quiz(_quiz(Essay()))


def test_whole_numbers_are_read_as_yaml_reads_them_never_crash() -> None:
    # The YAML fuzz target found `max_bytes: 0512` raising ValueError in int(..., 0): a leading
    # zero is YAML 1.1's octal, which the loader reads as PyYAML's constructor does (as it reads
    # `points`), for every whole-number key.
    q = _load(
        "  - id: e1\n    type: essay\n    stem: s\n    explanation: x\n    attachments: 0x2\n"
        "    max_bytes: 0512\n    response_lines: 1_0\n"
    )
    assert isinstance(q.body, Essay)
    assert (q.body.attachments, q.body.max_bytes, q.body.lines) == (2, 0o512, 10)
    assert [
        rule for rule, _ in _errors("  - id: e1\n    type: essay\n    stem: s\n    response_lines: 0b0\n")
    ] == ["source.bad-count"]
