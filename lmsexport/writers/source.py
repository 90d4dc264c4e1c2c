"""The model -> the YAML source format: what `lmsexport import` writes.

Not a build format (no registry line): it writes the bank's own source files, so that a bank
imported from Moodle or a QTI package is from then on edited like any other. The inverse of
source.py: loading what this writes gives the same quiz (a property test), with three
exceptions the caller is told about: a text Markdown cannot express exactly (writers/markdown.py),
a plain text in a file that needs `markup: markdown` (it becomes an escaped Markdown text), and
images, which are written as files beside the YAML by the caller (``image_paths``).

YAML is emitted by PyYAML with every text double-quoted or, when it has line breaks, as a `|`
block, so that no value can change type (`yes` stays a text) and the file reads naturally.
Comments (``notes``) say where each question came from and what changed on the way.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any, assert_never

import yaml

from ..model import (
    CREDIT_EPSILON,
    Answer,
    Assessment,
    Blank,
    CalcChoice,
    Calculated,
    CalculatedChoice,
    Choice,
    ChoiceBlank,
    ChoiceDisplay,
    Cloze,
    Description,
    Draw,
    Essay,
    Gap,
    Hint,
    LineBreak,
    ListVariable,
    Matching,
    MultipleChoice,
    NumberBlank,
    Numerical,
    NumericKey,
    Ordering,
    OrderingSelect,
    OutcomeFeedback,
    Para,
    Parameters,
    Question,
    QuestionType,
    Quiz,
    Rich,
    ShortAnswer,
    SingleChoice,
    Str,
    Text,
    TextBlank,
    Tolerance,
    ToleranceKind,
    TrueFalse,
    Unit,
    UnitGrading,
    UnitInput,
    default_multiple_credits,
    is_full,
)
from ..moodle import format_percent
from .markdown import plain_to_markdown, to_markdown


class _Dumper(yaml.SafeDumper):
    """Block style, texts quoted or as | blocks, keys in the order given."""


_OTHER_BREAKS = ("\r", "\x85", "\u2028", "\u2029")
"""Line breaks to YAML 1.1 besides \n: inside a | block they would be read back as \n."""


def _str(dumper: yaml.SafeDumper, value: str) -> yaml.ScalarNode:
    if (
        "\n" in value
        and not any(b in value for b in _OTHER_BREAKS)
        and not any(line != line.rstrip() for line in value.split("\n"))
    ):
        return dumper.represent_scalar("tag:yaml.org,2002:str", value, style="|")
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style='"')


class _Key(str):
    """A mapping key: always a plain identifier of the source format, written unquoted."""


def _key(dumper: yaml.SafeDumper, value: _Key) -> yaml.ScalarNode:
    return dumper.represent_scalar("tag:yaml.org,2002:str", str(value), style="")


class _Flow(list):  # type: ignore[type-arg]
    """A short list written on one line (tags, answers, a range)."""


def _flow(dumper: yaml.SafeDumper, value: _Flow) -> yaml.SequenceNode:
    return dumper.represent_sequence("tag:yaml.org,2002:seq", list(value), flow_style=True)


class _FlowMap(dict):  # type: ignore[type-arg]
    """A short mapping written on one line (a variable's range, one explicit variant)."""


def _flow_map(dumper: yaml.SafeDumper, value: _FlowMap) -> yaml.MappingNode:
    return dumper.represent_mapping("tag:yaml.org,2002:map", dict(value), flow_style=True)


_Dumper.add_representer(str, _str)
_Dumper.add_representer(_Key, _key)
_Dumper.add_representer(_Flow, _flow)
_Dumper.add_representer(_FlowMap, _flow_map)


def _keyed(data: Any) -> Any:
    if isinstance(data, _FlowMap):
        return _FlowMap({_Key(k): _keyed(v) for k, v in data.items()})
    if isinstance(data, dict):
        return {_Key(k): _keyed(v) for k, v in data.items()}
    if isinstance(data, _Flow):
        return _Flow(_keyed(v) for v in data)
    if isinstance(data, list):
        return [_keyed(v) for v in data]
    return data


def _dump(data: Any, indent: int = 0) -> str:
    text = yaml.dump(
        _keyed(data), Dumper=_Dumper, allow_unicode=True, sort_keys=False, width=100_000, indent=2
    )
    if indent:
        text = "".join(" " * indent + line if line.strip() else line for line in text.splitlines(True))
    return text


def _num(value: float) -> int | float:
    return int(value) if float(value).is_integer() and abs(value) < 1e15 else value


class _Texts:
    """Turns texts into YAML values for one file: Markdown when the file has markup."""

    def __init__(self, markdown: bool, image_paths: dict[str, str]) -> None:
        self.markdown = markdown
        self.image_paths = image_paths
        self.lost: list[str] = []
        self.by_question: dict[str, list[str]] = {}
        self.current: str | None = None
        """The id of the question being written (what it loses is also recorded under it)."""

    def __call__(self, text: Text) -> str:
        if isinstance(text, Rich):
            md, lost = to_markdown(text, self.image_paths)
            self.lost += [x for x in lost if x not in self.lost]
            if self.current is not None and lost:
                mine = self.by_question.setdefault(self.current, [])
                mine += [x for x in lost if x not in mine]
            return md
        return plain_to_markdown(text) if self.markdown else text


_BREAKS = ("\n", "\r", "\x0b", "\x0c", "\x1c", "\x1d", "\x1e", "\x85", "\u2028", "\u2029")
"""What str.splitlines() or YAML take for a line break: never inside a plain cloze stem's line."""


def plain_cloze_stem(stem: Text) -> str | None:
    """A cloze stem as the plain text the loader reads back into the same tree (source.py
    _cloze_stem: paragraphs, line breaks, `[[n]]` markers, `\\[[` for a literal `[[`), or None
    when it has markup or white space a plain text cannot give back."""
    if not isinstance(stem, Rich):
        return None
    paras: list[str] = []
    for block in stem.blocks:
        if not isinstance(block, Para) or not block.children:
            return None
        lines = [""]
        for x, following in zip(block.children, (*block.children[1:], None), strict=True):
            if isinstance(x, Str):
                if any(b in x.text for b in _BREAKS):
                    return None
                if x.text.endswith("\\") and isinstance(following, Gap):
                    return None  # `\[[1]]` would read as a literal `[[`
                lines[-1] += x.text.replace("[[", "\\[[")
            elif isinstance(x, Gap):
                lines[-1] += f"[[{x.n}]]"
            elif isinstance(x, LineBreak):
                lines.append("")
            else:
                return None
        # The loader strips the text and a line's spaces; str.strip() is the stricter of both.
        if any(not line or line != line.strip() for line in lines):
            return None
        paras.append("\n".join(lines))
    return "\n\n".join(paras) if paras else None


def _cloze_text(q: Question) -> Text:
    """A cloze stem as needs_markup and the writer see it: plain when it can be, else Rich."""
    if isinstance(q.body, Cloze):
        plain = plain_cloze_stem(q.stem)
        if plain is not None:
            return plain
    return q.stem


def _question(q: Question, text: _Texts) -> dict[str, Any]:
    out: dict[str, Any] = {"id": q.id}
    if q.type is not QuestionType.SINGLE:
        out["type"] = q.type.value
    if q.lang:
        out["lang"] = q.lang
    if q.name is not None:
        out["name"] = q.name
    if q.difficulty:
        out["difficulty"] = q.difficulty.value
    if q.points != 1 and not isinstance(q.body, Description):
        out["points"] = _num(q.points)
    if q.penalty is not None:
        out["penalty"] = _num(q.penalty)
    if q.tags:
        out["tags"] = _Flow(q.tags)
    if isinstance(q.body, Cloze) and not text.markdown:
        out["stem"] = _cloze_text(q)  # needs_markup made sure it is plain
    else:
        out["stem"] = text(q.stem)
    match q.body:
        case SingleChoice(choices) as body:
            # Today's form when it says it all: one key (`correct: true`), every other choice 0.
            flags = len(body.key_indexes) == 1 and all(c.full or c.credit == 0 for c in choices)
            out["choices"] = [_choice(c, text, flags) for c in choices]
        case MultipleChoice(choices) as body:
            # The flags of the right picks when the loader's default rule gives the credits.
            flags = body.default_credits
            out["choices"] = [_choice(c, text, flags) for c in choices]
        case TrueFalse(truth, feedback_true, feedback_false):
            out["answer"] = truth
            if feedback_true is not None:
                out["feedback_true"] = text(feedback_true)
            if feedback_false is not None:
                out["feedback_false"] = text(feedback_false)
        case ShortAnswer(answers, case_sensitive, other_feedback):
            out["answers"] = [_answer(a, text) for a in answers]
            if case_sensitive:
                out["case_sensitive"] = True
            if other_feedback is not None:
                out["other_feedback"] = text(other_feedback)
        case Numerical() as body:
            _numerical(body, out, text)
        case Matching(pairs, distractors):
            out["pairs"] = [{"left": text(p.left), "right": p.right} for p in pairs]
            if distractors:
                out["distractors"] = list(distractors)
        case Essay() as body:
            _essay(body, out, text)
        case Cloze(blanks):
            out["blanks"] = [_blank(b, text) for b in blanks]
        case Ordering() as body:
            _ordering(body, out, text)
        case Description():
            pass
        case Calculated() | CalculatedChoice() as body:
            _parametric(q.id, body, out, text)
        case _:
            assert_never(q.body)
    if q.feedback:
        out["feedback"] = _outcome_feedback(q.feedback, text)
    if q.hints:
        out["hints"] = [_hint(h, text) for h in q.hints]
    if q.explanation is not None:
        out["explanation"] = text(q.explanation)
    return out


def _credit(value: float) -> int | float | str:
    """A credit as the loader reads it back to the same float: a short decimal as a number, a
    fraction such as 1/3 as Moodle's percent ("33.33333%", which the loader snaps back to 1/3)."""
    if abs(round(value, 6) - value) < 1e-12:
        return _num(round(value, 6))
    return f"{format_percent(Fraction(value))}%"


def _choice(c: Choice, text: _Texts, flags: bool) -> dict[str, Any]:
    choice: dict[str, Any] = {"text": text(c.text)}
    if flags and c.earns:
        choice["correct"] = True
    elif not flags and c.credit != 0:
        choice["credit"] = _credit(c.credit)
    if c.feedback is not None:
        choice["feedback"] = text(c.feedback)
    if c.lang:
        choice["lang"] = c.lang
    return choice


def _answer(a: Answer, text: _Texts) -> str | dict[str, Any]:
    if is_full(a.credit) and a.feedback is None and not a.wildcard:
        return a.text
    out: dict[str, Any] = {"text": a.text}
    if not is_full(a.credit):
        out["credit"] = _credit(a.credit)
    if a.feedback is not None:
        out["feedback"] = text(a.feedback)
    if a.wildcard:
        out["wildcard"] = True
    return out


def _numeric_key(key: NumericKey, out: dict[str, Any]) -> None:
    if key.answer is not None:
        out["answer"] = _num(key.answer)
    if key.low is not None and key.high is not None:
        out["range"] = _Flow([_num(key.low), _num(key.high)])
    elif key.tolerance:
        out["tolerance"] = _num(key.tolerance)


def _numerical(body: Numerical, out: dict[str, Any], text: _Texts) -> None:
    only = body.keys[0]
    if len(body.keys) == 1 and is_full(only.credit) and only.feedback is None:
        _numeric_key(only, out)  # today's form: one key, full credit
    else:
        keys = []
        for key in body.keys:
            entry: dict[str, Any] = {}
            _numeric_key(key, entry)
            if not is_full(key.credit):
                entry["credit"] = _credit(key.credit)
            if key.feedback is not None:
                entry["feedback"] = text(key.feedback)
            keys.append(entry)
        out["answers"] = keys
    if body.other_feedback is not None:
        out["other_feedback"] = text(body.other_feedback)
    if not body.units:
        return  # the unit settings mean nothing without units (the loader refuses them)
    units = []
    for unit in body.units:
        entry = {"unit": unit.name}
        if unit.multiplier != 1:
            entry["multiplier"] = _num(unit.multiplier)
        units.append(entry)
    out["units"] = units
    if body.unit_grading is not UnitGrading.OPTIONAL:
        out["unit_grading"] = body.unit_grading.value
    if body.unit_penalty != Numerical.unit_penalty:
        out["unit_penalty"] = _num(body.unit_penalty)
    if body.unit_input is not UnitInput.TEXT:
        out["unit_input"] = body.unit_input.value
    if body.units_left:
        out["units_left"] = True


def _units(units: tuple[Unit, ...]) -> list[dict[str, Any]]:
    out = []
    for unit in units:
        entry: dict[str, Any] = {"unit": unit.name}
        if unit.multiplier != 1:
            entry["multiplier"] = _num(unit.multiplier)
        out.append(entry)
    return out


def _tolerance(tolerance: Tolerance) -> int | float | str:
    """A number (absolute) or a percent text (relative), as the loader reads it back exactly."""
    if tolerance.kind is ToleranceKind.RELATIVE:
        from decimal import Decimal

        from ..formula import format_value

        return f"{format_value(float(Decimal(repr(tolerance.value)) * 100))}%"
    return _num(tolerance.value)


def _parameters(qid: str, body: Calculated | CalculatedChoice, out: dict[str, Any]) -> None:
    """variables, derived, constraints and variants, each in the loader's shortest form. The
    variants as a count when drawing them again gives the same ones (a bank's own question);
    otherwise (an LMS's dataset, var sets, another id) as the explicit list, so that import ->
    build -> import keeps them exactly."""
    from ..errors import SourceError
    from ..variants import digits, draw

    p: Parameters = body.params
    variables: dict[str, Any] = {}
    for v in p.variables:
        if isinstance(v, ListVariable):
            values = _Flow(_num(x) for x in v.values)
            variables[v.name] = values if v.decimals is None else _FlowMap(values=values, decimals=v.decimals)
            continue
        entry = _FlowMap(min=_num(v.low), max=_num(v.high))
        if v.step == 1 and v.decimals == digits(v.low):
            pass  # the default: whole steps
        elif v.decimals == max(digits(v.low), digits(v.step)):
            entry["step"] = _num(v.step)
        elif v.step == float(f"1e-{v.decimals}") and digits(v.low) <= v.decimals:
            entry["decimals"] = v.decimals
        else:
            entry["step"] = _num(v.step)
            entry["decimals"] = v.decimals
        variables[v.name] = entry
    out["variables"] = variables
    if p.derived:
        out["derived"] = {
            d.name: d.formula.text
            if d.decimals is None
            else _FlowMap(formula=d.formula.text, decimals=d.decimals)
            for d in p.derived
        }
    if p.constraints:
        out["constraints"] = [c.formula.text for c in p.constraints]
    try:
        if isinstance(body, Calculated):
            again = draw(qid, p, answer=body.answer, tolerance=body.tolerance, decimals=body.decimals)
        else:
            again = draw(
                qid,
                p,
                choices=[c.formula for c in body.choices],
                correct=[i for i, c in enumerate(body.choices) if c.earns],
                tolerance=body.tolerance,
                decimals=body.decimals,
            )
        redrawn = again.variants == body.variants
    except SourceError:
        redrawn = False
    if redrawn and p.count is not None:
        out["variants"] = p.count
    elif not redrawn:
        names = [v.name for v in p.variables]
        out["variants"] = [
            _FlowMap({n: _num(x) for n, x in variant.values if n in names}) for variant in body.variants
        ]


def _parametric(qid: str, body: Calculated | CalculatedChoice, out: dict[str, Any], text: _Texts) -> None:
    _parameters(qid, body, out)
    if isinstance(body, Calculated):
        if body.tolerance == Tolerance() and body.decimals == 2:
            out["answer"] = body.answer.text
        else:
            answer: dict[str, Any] = {"formula": body.answer.text}
            if body.tolerance != Tolerance():
                answer["tolerance"] = _tolerance(body.tolerance)
            if body.decimals != 2:
                answer["decimals"] = body.decimals
            out["answer"] = _FlowMap(answer) if len(str(answer)) < 80 else answer
        if body.units:
            out["units"] = _units(body.units)
        return
    if body.multiple:
        out["multiple"] = True
    if body.decimals != 2:
        out["decimals"] = body.decimals
    if body.tolerance != Tolerance():
        out["tolerance"] = _tolerance(body.tolerance)
    if body.multiple:
        expected = default_multiple_credits([c.earns for c in body.choices])
        flags = all(abs(a - c.credit) < CREDIT_EPSILON for a, c in zip(expected, body.choices, strict=True))
    else:
        flags = sum(1 for c in body.choices if c.full) == 1 and all(
            c.full or c.credit == 0 for c in body.choices
        )
    out["choices"] = [_calc_choice(c, text, flags) for c in body.choices]


def _calc_choice(c: CalcChoice, text: _Texts, flags: bool) -> dict[str, Any]:
    choice: dict[str, Any] = {"formula": c.formula.text}
    if flags and c.earns:
        choice["correct"] = True
    elif not flags and c.credit != 0:
        choice["credit"] = _credit(c.credit)
    if c.feedback is not None:
        choice["feedback"] = text(c.feedback)
    return choice


def _essay(body: Essay, out: dict[str, Any], text: _Texts) -> None:
    default = Essay()
    if body.response_format is not default.response_format:
        out["response_format"] = body.response_format.value
    if body.required != default.required:
        out["response_required"] = body.required
    if body.lines != default.lines:
        out["response_lines"] = body.lines
    if body.min_words is not None:
        out["min_words"] = body.min_words
    if body.max_words is not None:
        out["max_words"] = body.max_words
    if body.template is not None:
        out["template"] = text(body.template)
    if body.grader_info is not None:
        out["grader_info"] = text(body.grader_info)
    if body.attachments:
        out["attachments"] = body.attachments
    if body.attachments_required:
        out["attachments_required"] = body.attachments_required
    if body.file_types:
        out["file_types"] = list(body.file_types)
    if body.max_bytes:
        out["max_bytes"] = body.max_bytes


def _blank(blank: Blank, text: _Texts) -> dict[str, Any]:
    """One blank of a cloze question, in the keys of the question type it scores like."""
    out: dict[str, Any] = {}
    match blank:
        case TextBlank(answers, case_sensitive, other_feedback):
            out["type"] = "short_answer"
            if case_sensitive:
                out["case_sensitive"] = True
            out["answers"] = [_answer(a, text) for a in answers]
            if other_feedback is not None:
                out["other_feedback"] = text(other_feedback)
        case NumberBlank(keys, other_feedback):
            out["type"] = "numerical"
            _numerical(Numerical(keys, other_feedback=other_feedback), out, text)
        case ChoiceBlank(choices, display, multiple, shuffle):
            out["type"] = "choice"
            if display is not ChoiceDisplay.DROPDOWN:
                out["display"] = display.value
            if multiple:
                out["multiple"] = True
            if shuffle:
                out["shuffle"] = True
            if multiple:
                expected = default_multiple_credits([c.earns for c in choices])
                flags = all(abs(a - c.credit) < 1e-6 for a, c in zip(expected, choices, strict=True))
            else:
                flags = len(SingleChoice(choices).key_indexes) == 1 and all(
                    c.full or c.credit == 0 for c in choices
                )
            out["choices"] = [_choice(c, text, flags) for c in choices]
        case _:
            assert_never(blank)
    if blank.weight != 1:
        out["weight"] = blank.weight
    return out


def _ordering(body: Ordering, out: dict[str, Any], text: _Texts) -> None:
    default = Ordering(items=())
    out["items"] = [text(item) for item in body.items]
    if body.grading is not default.grading:
        out["grading"] = body.grading.value
    if body.select is not OrderingSelect.ALL:
        out["select"] = {"type": body.select.value, "count": body.select_count}
    if body.layout is not default.layout:
        out["layout"] = body.layout.value
    if body.numbering is not default.numbering:
        out["numbering"] = body.numbering.value
    if body.show_grading != default.show_grading:
        out["show_grading"] = body.show_grading


def _outcome_feedback(feedback: OutcomeFeedback, text: _Texts) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name in ("correct", "partial", "incorrect"):
        value = getattr(feedback, name)
        if value is not None:
            out[name] = text(value)
    if feedback.show_num_correct:
        out["show_num_correct"] = True
    return out


def _hint(hint: Hint, text: _Texts) -> str | dict[str, Any]:
    if not hint.show_num_correct and not hint.clear_wrong:
        return text(hint.text)
    out: dict[str, Any] = {"text": text(hint.text)}
    if hint.show_num_correct:
        out["show_num_correct"] = True
    if hint.clear_wrong:
        out["clear_wrong"] = True
    return out


def question_texts(q: Question) -> list[Text | None]:
    """Every text of a question, in reading order (for needs_markup); a cloze stem plain
    when plain_cloze_stem can write it."""
    texts: list[Text | None] = [_cloze_text(q), q.explanation, q.feedback.correct, q.feedback.partial]
    texts += [q.feedback.incorrect, *(h.text for h in q.hints)]
    match q.body:
        case SingleChoice(choices) | MultipleChoice(choices):
            texts += [t for c in choices for t in (c.text, c.feedback)]
        case TrueFalse(_, feedback_true, feedback_false):
            texts += [feedback_true, feedback_false]
        case ShortAnswer(answers, _, other_feedback):
            texts += [a.feedback for a in answers] + [other_feedback]
        case Numerical() as body:
            texts += [k.feedback for k in body.keys] + [body.other_feedback]
        case Matching(pairs):
            texts += [p.left for p in pairs]
        case Essay(template=template, grader_info=grader_info):
            texts += [template, grader_info]
        case Cloze(blanks):
            for blank in blanks:
                match blank:
                    case TextBlank(answers, _, other_feedback):
                        texts += [a.feedback for a in answers] + [other_feedback]
                    case NumberBlank(keys, other_feedback):
                        texts += [k.feedback for k in keys] + [other_feedback]
                    case ChoiceBlank(choices):
                        texts += [t for c in choices for t in (c.text, c.feedback)]
                    case _:
                        assert_never(blank)
        case Ordering(items):
            texts += list(items)
        case Description():
            pass
        case Calculated():
            pass
        case CalculatedChoice(choices=calc_choices):
            texts += [c.feedback for c in calc_choices]
        case _:
            assert_never(q.body)
    return texts


def needs_markup(quiz: Quiz) -> bool:
    """Whether any text of the quiz is rich (the file then says `markup: markdown`)."""
    texts: list[Text | None] = [quiz.description]
    for q in quiz.questions:
        texts += question_texts(q)
    return any(isinstance(t, Rich) for t in texts)


def write_quiz(
    quiz: Quiz,
    notes: dict[str, list[str]] | None = None,
    header: list[str] | None = None,
    image_paths: dict[str, str] | None = None,
    lost_by_question: dict[str, list[str]] | None = None,
) -> tuple[str, list[str]]:
    """A quiz as the text of a source file, and what Markdown could not express exactly.

    ``header``: comment lines at the top (where the quiz came from); ``notes``: comment lines per
    question id, written above it; ``image_paths``: image digest -> the path the YAML names;
    ``lost_by_question``, when given, receives what Markdown could not express per question id.
    """
    markdown = needs_markup(quiz)
    text = _Texts(markdown, image_paths or {})
    top: dict[str, Any] = {"id": quiz.id, "title": quiz.title}
    if quiz.description is not None:
        top["description"] = text(quiz.description)
    top["lang"] = quiz.lang
    if markdown:
        top["markup"] = "markdown"
    if quiz.difficulty:
        top["difficulty"] = quiz.difficulty.value
    if quiz.category:
        top["category"] = quiz.category
    if not quiz.shuffle:
        top["shuffle"] = False
    parts = ["".join(f"# {line}\n" for line in header or []), _dump(top), "questions:\n"]
    for q in quiz.questions:
        for line in (notes or {}).get(q.id, []):
            parts.append(f"  # {line}\n")
        text.current = q.id
        item = _dump([_question(q, text)], indent=2)
        parts.append(item)
    if lost_by_question is not None:
        lost_by_question.update(text.by_question)
    return "".join(parts), text.lost


def _draw(draw: Draw, default_name: str) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if draw.name != default_name:
        out["name"] = draw.name
    if draw.pool is None:
        out["questions"] = _Flow(draw.ids)
    else:
        assert draw.pick is not None
        out["pick"] = draw.pick
        pool = draw.pool
        conditions: dict[str, Any] = {}
        for key, values in (
            ("tags", list(pool.tags)),
            ("any_tags", list(pool.any_tags)),
            ("quiz", list(pool.quizzes)),
            ("type", [t.value for t in pool.types]),
            ("difficulty", [d.value for d in pool.difficulties]),
            ("lang", list(pool.langs)),
        ):
            if values:
                conditions[key] = _Flow(values)
        if pool.category is not None:
            conditions["category"] = pool.category
        out["from"] = conditions
    if draw.points is not None:
        out["points"] = _num(draw.points)
    return out


def write_assessment(assessment: Assessment, header: list[str] | None = None) -> tuple[str, list[str]]:
    """An assessment as the text of a source file (the loader's inverse: loading it gives the same
    recipe), and what Markdown could not express exactly of its description."""
    markdown = isinstance(assessment.description, Rich)
    text = _Texts(markdown, {})
    top: dict[str, Any] = {"id": assessment.id, "title": assessment.title}
    if assessment.description is not None:
        top["description"] = text(assessment.description)
    top["lang"] = assessment.lang
    if markdown:
        top["markup"] = "markdown"
    sections = []
    for i, section in enumerate(assessment.sections, 1):
        entry: dict[str, Any] = {}
        if section.title is not None:
            entry["title"] = section.title
        if section.shuffle:
            entry["shuffle"] = True
        entry["draws"] = [_draw(d, f"section{i}-draw{j}") for j, d in enumerate(section.draws, 1)]
        sections.append(entry)
    top["sections"] = sections
    return "".join(f"# {line}\n" for line in header or []) + _dump(top), text.lost
