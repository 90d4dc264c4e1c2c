// Runs an attempt and scores it in the browser. Keys come from the JSON data block; feedback
// and explanations are <template> elements, cloned into the page only on submit. Every
// injected text goes through textContent, and markup only ever comes from the page's own
// templates (cloned nodes, never innerHTML), so no source text can become markup. Keep this
// file ASCII: its sha256 is in the page's Content-Security-Policy.
(function () {
  "use strict";
  var form = document.querySelector("form.questions");
  var dataEl = document.getElementById("lmsx-data");
  if (!form || !dataEl) {
    return;
  }
  var data = JSON.parse(dataEl.textContent);
  var ui = data.ui;
  var slice = function (list) { return Array.prototype.slice.call(list); };
  // Every question of the page, in page order (= data.questions); an attempt shows some.
  var questions = slice(form.querySelectorAll("section[data-question-id]"));
  var homes = questions.map(function (s) { return s.parentNode; });
  var parts = slice(form.querySelectorAll("section.part"));
  var summary = document.querySelector("[data-role=summary]");
  var scoreEl = document.querySelector("[data-role=score]");
  var announce = document.querySelector("[data-role=announce]");
  var totalEl = document.querySelector("[data-role=total-points]");
  var nav = form.querySelector("[data-role=nav]");
  var position = form.querySelector("[data-role=position]");
  var toggle = form.querySelector("[data-action=toggle-view]");
  var prevBtn = form.querySelector("[data-action=previous]");
  var nextBtn = form.querySelector("[data-action=next]");
  var retryBtn = form.querySelector("[data-action=retry]");
  // active: indexes (into questions) of this attempt's questions, in the order shown.
  // hints: per question index, how many hints the learner took in this attempt.
  var state = { mode: "one", current: 0, submitted: false, active: [], hints: {} };

  // ---------------------------------------------------------------- randomness
  // xoshiro128** (Blackman and Vigna, 2018), its 128-bit state filled by splitmix32 from a
  // 32-bit seed, or straight from crypto.getRandomValues.
  function xoshiro128ss(a, b, c, d) {
    return function () {
      var t = b << 9;
      var r = Math.imul(b, 5);
      r = Math.imul((r << 7) | (r >>> 25), 9);
      c ^= a;
      d ^= b;
      b ^= c;
      a ^= d;
      c ^= t;
      d = (d << 11) | (d >>> 21);
      return r >>> 0;
    };
  }

  function splitmix32(seed) {
    var a = seed | 0;
    return function () {
      a = (a + 0x9e3779b9) | 0;
      var t = a ^ (a >>> 16);
      t = Math.imul(t, 0x21f0aaad);
      t ^= t >>> 15;
      t = Math.imul(t, 0x735a2d97);
      return (t ^ (t >>> 15)) >>> 0;
    };
  }

  function seeded(seed) {
    var sm = splitmix32(seed);
    return xoshiro128ss(sm(), sm(), sm(), sm());
  }

  // An unbiased integer in [0, n): draws above the largest multiple of n are redrawn.
  function below(next, n) {
    var limit = 4294967296 - (4294967296 % n);
    var x = next();
    while (x >= limit) {
      x = next();
    }
    return x % n;
  }

  function shuffled(next, list) {
    var out = list.slice();
    for (var i = out.length - 1; i > 0; i--) {
      var j = below(next, i + 1);
      var tmp = out[i];
      out[i] = out[j];
      out[j] = tmp;
    }
    return out;
  }

  // k of the items, each k-subset equally likely, in their given order.
  function sample(next, items, k) {
    var chosen = shuffled(next, items.map(function (_, i) { return i; })).slice(0, k);
    chosen.sort(function (x, y) { return x - y; });
    return chosen.map(function (i) { return items[i]; });
  }

  var seedParam = /^\?(?:.*&)?seed=(\d{1,10})(?:&|$)/.exec(location.search);
  var random;
  if (seedParam && Number(seedParam[1]) < 4294967296) {
    random = seeded(Number(seedParam[1]));
  } else {
    var words = new Uint32Array(4);
    crypto.getRandomValues(words);
    random = xoshiro128ss(words[0] | 1, words[1], words[2], words[3]);
  }
  // For tests: the generator itself, checked against the reference's published outputs.
  window.lmsxRandom = Object.freeze({ xoshiro128ss: xoshiro128ss, seeded: seeded, below: below });

  // ---------------------------------------------------------------- attempts

  function fill(template, n, total) {
    return template.replace("{n}", String(n)).replace("{total}", String(total));
  }

  // Points never need more than two decimals; String() drops a trailing ".0".
  function fmt(n) {
    return String(Math.round(n * 100) / 100);
  }

  function choiceList(section) {
    return section.querySelector("ul.choices");
  }

  function shuffleChoices(section) {
    var list = choiceList(section);
    var items = slice(list.children);
    items.sort(function (x, y) { return choiceIndex(x) - choiceIndex(y); });
    shuffled(random, items).forEach(function (li) { list.appendChild(li); });
  }

  function choiceIndex(li) {
    return Number(li.querySelector("input[data-choice-index]").getAttribute("data-choice-index"));
  }

  // A new attempt: a fresh draw (an assessment's questions go back to their draws' groups
  // first; a quiz shows all of its questions where the page has them).
  function drawAttempt() {
    var active = [];
    if (!data.parts) {
      active = questions.map(function (_, i) { return i; });
    } else {
      questions.forEach(function (s, i) {
        homes[i].appendChild(s);
        s.removeAttribute("data-position");
      });
      data.parts.forEach(function (part, p) {
        var chosen = [];
        part.draws.forEach(function (draw) {
          chosen = chosen.concat(draw.pick === null ? draw.items : sample(random, draw.items, draw.pick));
        });
        if (part.shuffle) {
          chosen = shuffled(random, chosen);
        }
        var box = parts[p].querySelector("[data-role=attempt]");
        chosen.forEach(function (i) { box.appendChild(questions[i]); });
        active = active.concat(chosen);
      });
    }
//#if structured
    // Descriptions keep their place but are not counted: "Question n of m" numbers questions.
    var counted = active.filter(function (i) { return data.questions[i].type !== "description"; });
//#endif
    active.forEach(function (i, n) {
      var section = questions[i];
      section.setAttribute("data-position", String(n + 1));
//#if structured
      var qnum = section.querySelector(".qnum");
      if (qnum) {
        qnum.textContent = fill(ui.question_of, counted.indexOf(i) + 1, counted.length);
      }
//#else
      section.querySelector(".qnum").textContent = fill(ui.question_of, n + 1, active.length);
//#endif
//#if parametric
      if (data.questions[i].variants) {
        drawVariant(i, section);
      }
//#endif
      if (data.questions[i].shuffle) {
        shuffleChoices(section);
      }
//#if structured
      drawStructured(data.questions[i], section);
//#endif
    });
    state.active = active;
    if (totalEl) {
      var max = 0;
      active.forEach(function (i) {
        if (data.questions[i].type !== "essay") {
          max += data.questions[i].points;
        }
      });
      totalEl.textContent = (max === 1 ? ui.points_one : ui.points_many).replace("{n}", fmt(max));
      totalEl.hidden = false;
    }
  }

  function el(tag, className, text) {
    var node = document.createElement(tag);
    if (className) {
      node.className = className;
    }
    if (text !== undefined && text !== null) {
      node.textContent = text;
    }
    node.setAttribute("data-added", "");
    return node;
  }

  // A copy of one of the page's <template> elements (an explanation, a feedback).
  function cloned(id) {
    return document.importNode(document.getElementById(id).content, true);
  }

  // Marks UI-language text placed inside content of another language.
  function uiLang(node, contentLang) {
    if (contentLang !== data.uiLang) {
      node.lang = data.uiLang;
      node.dir = data.uiDir;
    }
    return node;
  }

  function render() {
    var one = state.mode === "one";
    var total = state.active.length;
    var current = state.active[state.current];
    questions.forEach(function (s, i) {
      s.hidden = !s.hasAttribute("data-position") || (one && i !== current);
    });
    parts.forEach(function (part) {
      part.hidden = one && !part.contains(questions[current]);
      // The draws' groups hold the questions this attempt did not draw.
      slice(part.querySelectorAll(".draw")).forEach(function (d) { d.hidden = true; });
    });
    nav.hidden = !one;
    toggle.textContent = one ? ui.review_all : ui.one_at_a_time;
//#if structured
    var counted = state.active.filter(function (i) { return data.questions[i].type !== "description"; });
    var shownNumber = counted.indexOf(current);
    position.textContent = one && shownNumber >= 0 ? fill(ui.question_of, shownNumber + 1, counted.length) : "";
//#else
    position.textContent = one ? fill(ui.question_of, state.current + 1, total) : "";
//#endif
    prevBtn.disabled = state.current === 0;
    nextBtn.disabled = state.current === total - 1;
  }

  function go(delta) {
    state.current = Math.min(state.active.length - 1, Math.max(0, state.current + delta));
    render();
  }

  // ---------------------------------------------------------------- scoring
  //
  // Each scorer returns the credit of the response (a fraction of the points: the model's
  // rules, the same in every format) and what to show for it. Credits closer than EPS to 1 are
  // full credit, as in the model (formats keep 7 decimals; 3 x 1/3 adds up to 1 anyway).

  var EPS = 1e-6;

  // Numbers as typed on Urdu and Arabic keyboards: Arabic-Indic and Extended Arabic-Indic
  // digits, a Unicode minus, and invisible bidi marks that RTL input methods insert, with white
  // space and the Arabic thousands separator dropped. Unit names go through it too, so that a
  // unit compares equal however it was typed (NFKC: "m\u00b2" is "m2").
  function canon(raw) {
    return raw.normalize("NFKC")
      .replace(/[\u200e\u200f\u061c\u202a-\u202e\u2066-\u2069]/g, "")
      .replace(/[\u0660-\u0669]/g, function (d) { return String(d.charCodeAt(0) - 0x660); })
      .replace(/[\u06f0-\u06f9]/g, function (d) { return String(d.charCodeAt(0) - 0x6f0); })
      .replace(/[\u2212\u2012\u2013\ufe63]/g, "-")
      .replace(/[\s\u066c]/g, "");
  }

  // "." "," or the Arabic decimal separator before the decimals.
  var NUMBER = "[+-]?(?:\\d+(?:[.,\\u066b]\\d*)?|[.,\\u066b]\\d+)(?:e[+-]?\\d+)?";
  var WHOLE_NUMBER = new RegExp("^" + NUMBER + "$", "i");
  var LEADING_NUMBER = new RegExp("^" + NUMBER, "i");
  var TRAILING_NUMBER = new RegExp(NUMBER + "$", "i");

  function toNumber(s) {
    return Number(s.replace(/[,\u066b]/g, "."));
  }

  function parseNumber(raw) {
    var s = canon(raw);
    return WHOLE_NUMBER.test(s) ? toNumber(s) : NaN;
  }

  // A number typed with its unit ("5 GB", "$5"), split as Moodle's
  // qtype_numerical_answer_processor::apply_units splits it: the number at the start (at the
  // end when units stand left of it), the rest is the unit. null: no number.
  function splitUnit(raw, unitsLeft) {
    var s = canon(raw);
    var m = (unitsLeft ? TRAILING_NUMBER : LEADING_NUMBER).exec(s);
    if (!m) {
      return null;
    }
    var unit = unitsLeft ? s.slice(0, s.length - m[0].length) : s.slice(m[0].length);
    return { value: toNumber(m[0]), unit: unit };
  }

  function normalize(text, caseSensitive) {
    var s = text.normalize("NFC").trim();
    return caseSensitive ? s : s.toLowerCase();
  }

  function choiceInputs(section) {
    return slice(section.querySelectorAll("input[data-choice-index]"));
  }

  function picked(section) {
    return choiceInputs(section).filter(function (i) { return i.checked; }).map(function (i) {
      return Number(i.getAttribute("data-choice-index"));
    });
  }

  function answerText(section) {
    var input = section.querySelector("[data-role=answer-input]");
    return input ? input.value : "";
  }

  function snap(credit) {
    return Math.abs(credit - 1) < EPS ? 1 : credit;
  }

  // Whether a pick is a right one: for single choice and true/false a full-credit choice, for
  // multiple choice any that earns credit.
  function rightPick(q, i) {
    return q.type === "multiple" ? q.credit[i] > EPS / 2 : q.credit[i] >= 1 - EPS;
  }

  // single, true_false: the picked choice's credit (negative credit gives a negative mark);
  // multiple: the picks' credits summed, clamped to [0, 1].
  function scoreChoices(q, section) {
    var chosen = picked(section);
    var credit = 0;
    chosen.forEach(function (i) { credit += q.credit[i]; });
    if (q.type === "multiple") {
      credit = Math.min(1, Math.max(0, credit));
    }
    var right = chosen.filter(function (i) { return rightPick(q, i); }).length;
    return { credit: snap(credit), right: right, of: q.correct.length };
  }

  function shortCredit(q, i) {
    return q.credit ? q.credit[i] : 1;
  }

  // Moodle's qtype_shortanswer_question::compare_string_with_wildcard: a run of unescaped *
  // matches any text, \* is a literal *.
  function wildcardMatch(pattern, given) {
    var bits = pattern.split(/(?<!\\)\*+/).map(function (bit) {
      return bit.replace(/\\\*/g, "*").replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
    });
    return new RegExp("^" + bits.join("[\\s\\S]*") + "$").test(given);
  }

  // The first answer, in order, that the response matches earns its credit and shows its
  // feedback; none: 0 and the feedback for any other answer.
  function scoreShort(q, section) {
    var given = normalize(answerText(section), q.caseSensitive);
    if (given === "") {
      return { credit: 0, feedback: null };
    }
    for (var i = 0; i < q.answers.length; i++) {
      var answer = normalize(q.answers[i], q.caseSensitive);
      var hit = q.wildcard && q.wildcard[i] ? wildcardMatch(answer, given) : answer === given;
      if (hit) {
        return { credit: snap(shortCredit(q, i)), feedback: q.feedback ? q.feedback[i] : null };
      }
    }
    return { credit: 0, feedback: q.other || null };
  }

  // Right within a key's closed interval, with a 1e-9 relative slack so that float rounding of
  // answer +- tolerance never rejects a boundary value.
  function inBounds(v, bounds) {
    var slack = 1e-9 * Math.max(1, Math.abs(bounds[0]), Math.abs(bounds[1]));
    return v >= bounds[0] - slack && v <= bounds[1] + slack;
  }

  function numericKeys(q) {
//#if parametric
    if (q.near) {
      return [{ near: q.near, credit: 1, feedback: null }];
    }
//#endif
    return q.keys || [{ bounds: q.bounds, credit: 1, feedback: null }];
  }
//#if parametric

  // ---------------------------------------------------------------- parametric questions
  //
  // A parametric question's variants are in its data ("variants": what differs from one to the
  // next) and its texts in <template>s named by them. Each attempt draws one, never the one the
  // previous attempt showed (when there are two or more), and puts it in place: its fields in
  // the question's data (the key, the ids of its explanation, feedback and hints), its stem in
  // the stem's element, its choices' numbers in their labels.

  var lastVariant = {};

  function drawVariant(i, section) {
    var q = data.questions[i];
    var k = q.variants.length;
    var prev = lastVariant[i];
    var pick;
    if (prev === undefined || k < 2) {
      pick = below(random, k);
    } else {
      pick = below(random, k - 1);
      if (pick >= prev) {
        pick += 1;
      }
    }
    lastVariant[i] = pick;
    var v = q.variants[pick];
    Object.keys(v).forEach(function (name) { q[name] = v[name]; });
    section.setAttribute("data-variant", String(q.variant));
    if (v.stem) {
      var stem = document.getElementById(section.id + "-stem");
      stem.replaceChildren(cloned(v.stem));
    }
    if (v.choices) {
      choiceInputs(section).forEach(function (input) {
        var text = input.closest("label").querySelector("[data-role=choice-text]");
        text.textContent = v.choices[Number(input.getAttribute("data-choice-index"))];
      });
    }
  }

  // variants.accepts(key, tolerance, response, "lmsexport"): |v - key| <= margin, both computed
  // by the writer, so the page decides as Python does; any other key: its bounds.
  function holds(key, v) {
    return key.near ? Math.abs(v - key.near[0]) <= key.near[1] : inBounds(v, key.bounds);
  }
//#endif

  function unitIndex(q, name) {
    var wanted = canon(name);
    for (var i = 0; i < q.units.length; i++) {
      if (canon(q.units[i][0]) === wanted) {
        return i;
      }
    }
    return -1;
  }

  function pickedUnit(section) {
    var select = section.querySelector("select[data-role=unit-input]");
    if (select) {
      return select.value === "" ? -1 : Number(select.value);
    }
    var checked = section.querySelector("input[data-unit-index]:checked");
    return checked ? Number(checked.getAttribute("data-unit-index")) : -1;
  }

  // Moodle's qtype_numerical_question::grade_response: a number in a known unit is converted
  // to the base unit (divided by the unit's multiplier); the first key, in order, that holds
  // it earns its credit; a key that holds the number only as typed (a wrong or missing unit)
  // earns it less the unit penalty: of the credit (grading "response") or of the points
  // ("question"), never below 0; "optional" grading costs nothing.
  function scoreNumber(q, section) {
    var text = answerText(section);
    var value;
    var unit = null; // the unit's index, -1 for a wrong or missing one; null: no units
    if (!q.units) {
      value = parseNumber(text);
    } else if (q.unitInput === "text") {
      var parts = splitUnit(text, q.unitsLeft);
      value = parts ? parts.value : NaN;
      unit = parts && parts.unit !== "" ? unitIndex(q, parts.unit) : -1;
    } else {
      value = parseNumber(text);
      unit = pickedUnit(section);
    }
    if (!isFinite(value)) {
      return { credit: 0, feedback: null };
    }
    var known = unit !== null && unit >= 0;
    var scaled = known ? value / q.units[unit][1] : value;
    var keys = numericKeys(q);
    for (var i = 0; i < keys.length; i++) {
      var unitRight;
//#if parametric
      if (holds(keys[i], scaled)) {
        unitRight = unit === null || known;
      } else if (unit !== null && holds(keys[i], value)) {
//#else
      if (inBounds(scaled, keys[i].bounds)) {
        unitRight = unit === null || known;
      } else if (unit !== null && inBounds(value, keys[i].bounds)) {
//#endif
        unitRight = false;
      } else {
        continue;
      }
      var credit = keys[i].credit;
      if (!unitRight && q.unitGrading === "response") {
        credit = Math.max(0, credit - q.unitPenalty * credit);
      } else if (!unitRight && q.unitGrading === "question") {
        credit = Math.max(0, credit - q.unitPenalty);
      }
      return { credit: snap(credit), feedback: keys[i].feedback, unitWrong: !unitRight };
    }
    return { credit: 0, feedback: q.other || null };
  }

  function selects(section) {
    return slice(section.querySelectorAll("select[data-pair-index]"));
  }

  function pairRight(q, s) {
    return s.value === String(q.key[Number(s.getAttribute("data-pair-index"))]);
  }

  function scoreMatching(q, section) {
    var right = selects(section).filter(function (s) { return pairRight(q, s); }).length;
    return { credit: snap(right / q.key.length), right: right, of: q.key.length };
  }

//#if structured
  // ---------------------------------------------------------------- cloze and ordering
  //
  // Scored exactly as lmsexport/scoring.py (the reference every format is tested against) says,
  // which transcribes Moodle's qtype_multianswer and qtype_ordering.

  // A new attempt's draw for a cloze (its shuffled choice blanks, in blank order) or an
  // ordering (its items drawn, then shuffled): after the question's own choices, so that pages
  // without these kinds draw exactly as before.
  function drawStructured(q, section) {
    slice(section.querySelectorAll("[data-mark]")).forEach(function (n) { n.removeAttribute("data-mark"); });
    if (q.type === "cloze") {
      q.blanks.forEach(function (b, k) {
        if (b.kind === "choice" && b.shuffle) {
          shuffleBlank(section, k + 1);
        }
      });
    } else if (q.type === "ordering") {
      drawOrdering(q, section);
    }
  }

  function blankControls(section, n) {
    return slice(section.querySelectorAll("[data-blank=\"" + n + "\"]"));
  }

  // A choice blank's options (a <select>'s, after its empty one) or labels, in a new order.
  function shuffleBlank(section, n) {
    var first = blankControls(section, n)[0];
    var holder = first.tagName === "SELECT" ? first : first.closest("[data-blank-group]");
    var nodes = first.tagName === "SELECT"
      ? slice(holder.querySelectorAll("option[data-choice-index]"))
      : slice(holder.querySelectorAll("label"));
    var index = function (node) {
      var c = node.matches("[data-choice-index]") ? node : node.querySelector("[data-choice-index]");
      return Number(c.getAttribute("data-choice-index"));
    };
    nodes.sort(function (x, y) { return index(x) - index(y); });
    shuffled(random, nodes).forEach(function (node) { holder.appendChild(node); });
  }

  // What the learner gave blank n: the typed text, the picked index (null: none), or the
  // picked indexes of a multiple choice blank.
  function blankResponse(section, b, n) {
    var controls = blankControls(section, n);
    if (b.kind !== "choice") {
      return controls[0].value;
    }
    if (controls[0].tagName === "SELECT") {
      return controls[0].value === "" ? null : Number(controls[0].value);
    }
    var picks = controls.filter(function (c) { return c.checked; }).map(function (c) {
      return Number(c.getAttribute("data-choice-index"));
    });
    if (b.multiple) {
      return picks;
    }
    return picks.length ? picks[0] : null;
  }

  // PHP's trim(): space, tab, line feed, carriage return, NUL and vertical tab only.
  function phpTrim(s) {
    return s.replace(/^[ \t\n\r\0\x0b]+|[ \t\n\r\0\x0b]+$/g, "");
  }

  // qtype_shortanswer_question::compare_string_with_wildcard: the whole NFC answer, each run of
  // unescaped * any text but a line break in a wildcard answer, case-insensitively (simple
  // Unicode case folding, as PCRE's /iu) unless the blank is case sensitive.
  function textMatches(answer, wildcard, caseSensitive, given) {
    var text = answer.normalize("NFC");
    var escape = function (bit) { return bit.replace(/[.*+?^${}()|[\]\\\/]/g, "\\$&"); };
    var body = wildcard
      ? text.split(/(?<!\\)\*+/).map(function (bit) { return escape(bit.replace(/\\\*/g, "*")); }).join("[^\\n]*")
      : escape(text);
    return new RegExp("^(?:" + body + ")$", caseSensitive ? "u" : "iu").test(given);
  }

  // qtype_numerical_answer_processor::apply_units with no units (scoring.parse_number), after
  // reading Urdu and Arabic keyboards as the numerical question does (their digits, the Arabic
  // decimal and thousands separators, a Unicode minus, the bidi marks RTL input methods
  // insert): trimmed, spaces go; e, x10^, *10^ introduce an exponent; with a "." or several
  // "," the commas are thousands separators, else a "," is the decimal point; the longest
  // number at the start counts, and what follows is ignored (a cloze's number has no unit).
  function blankNumber(raw) {
    var s = phpTrim(raw).replace(/[\u200e\u200f\u061c\u202a-\u202e\u2066-\u2069]/g, "")
      .replace(/[\u0660-\u0669]/g, function (d) { return String(d.charCodeAt(0) - 0x660); })
      .replace(/[\u06f0-\u06f9]/g, function (d) { return String(d.charCodeAt(0) - 0x6f0); })
      .replace(/\u066b/g, ".").replace(/\u066c/g, ",").replace(/\u2212/g, "-").replace(/ /g, "");
    s = s.replace(/(?:e|E|(?:x|\*|\u00d7)10(?:\^|\*\*))([+-]?[0-9]+)/g, "e$1");
    if (s.indexOf(".") >= 0 || (s.match(/,/g) || []).length > 1) {
      s = s.replace(/,/g, "");
    } else {
      s = s.replace(",", ".");
    }
    var m = /^[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:e[-+]?[0-9]+)?/.exec(s);
    return m ? Number(m[0]) : NaN;
  }

  // One blank's credit (before its weight) and the template of the feedback it earns.
  function blankCredit(b, response) {
    if (response === null) {
      return { credit: 0, feedback: null };
    }
    if (b.kind === "text") {
      var given = phpTrim(response.normalize("NFC"));
      if (given === "") {
        return { credit: 0, feedback: null };
      }
      for (var i = 0; i < b.answers.length; i++) {
        if (textMatches(b.answers[i], b.wildcard[i], b.caseSensitive, given)) {
          return { credit: b.credit[i], feedback: b.feedback[i] };
        }
      }
      return { credit: 0, feedback: b.other || null };
    }
    if (b.kind === "number") {
      if (phpTrim(response) === "") {
        return { credit: 0, feedback: null };
      }
      var v = blankNumber(response);
      for (var k = 0; k < b.keys.length && !isNaN(v); k++) {
        // The key's interval as scoring.key_interval widens it, computed by the writer.
        if (v >= b.keys[k].bounds[0] && v <= b.keys[k].bounds[1]) {
          return { credit: b.keys[k].credit, feedback: b.feedback[k] };
        }
      }
      return { credit: 0, feedback: b.other || null };
    }
    if (b.multiple) {
      var sum = 0;
      response.forEach(function (j) { sum += b.credit[j]; });
      return { credit: Math.min(1, Math.max(0, sum)), feedback: null, picks: response };
    }
    return { credit: b.credit[response], feedback: b.feedback[response] };
  }

  // qtype_multianswer_question::grade_response: the blanks' credits weighted by their weights,
  // unanswered blanks counting 0, nothing clamped (a negative choice credit can make it negative).
  function scoreCloze(q, section) {
    var total = 0;
    var weights = 0;
    var blanks = q.blanks.map(function (b, k) {
      var response = blankResponse(section, b, k + 1);
      var r = blankCredit(b, response);
      r.response = response;
      total += b.weight * r.credit;
      weights += b.weight;
      return r;
    });
    var right = blanks.filter(function (r) { return r.credit >= 1 - EPS; }).length;
    return { credit: snap(total / weights), blanks: blanks, right: right, of: blanks.length };
  }

  // The right answer of a blank as the learner is shown it: a text blank's full-credit answers,
  // a number blank's key, a choice blank's right choices (their words, from the page).
  function blankKey(section, b, n) {
    if (b.kind === "text") {
      // A wildcard pattern only when no full-credit answer is a word to type as it stands.
      var full = b.answers.filter(function (_, i) { return b.credit[i] >= 1 - EPS; });
      var words = b.answers.filter(function (_, i) { return b.credit[i] >= 1 - EPS && !b.wildcard[i]; });
      return words.length ? words : full;
    }
    if (b.kind === "number") {
      return [b.keyText];
    }
    var controls = blankControls(section, n);
    return b.key.map(function (i) {
      if (controls[0].tagName === "SELECT") {
        return controls[0].querySelector("option[data-choice-index=\"" + i + "\"]").textContent;
      }
      var input = controls.filter(function (c) { return c.getAttribute("data-choice-index") === String(i); })[0];
      return input.closest("label").textContent.trim();
    });
  }

  // After submitting, each blank says how it scored where it stands (a symbol, and its words
  // for screen readers) and the list under the text says it in full: the mark, the right
  // answer of a blank short of full credit, the feedback its response earned.
  function showClozeResults(q, section, result) {
    var fieldset = section.querySelector("fieldset");
    var list = el("ol", "blank-results");
    list.setAttribute("data-role", "blank-results");
    result.blanks.forEach(function (r, k) {
      var b = q.blanks[k];
      var n = k + 1;
      var kind = r.credit >= 1 - EPS ? "ok" : r.credit > EPS ? "part" : "bad";
      var symbol = { ok: "\u2713", part: "\u25d0", bad: "\u2717" }[kind];
      var word = { ok: ui.correct, part: ui.partly_correct, bad: ui.incorrect }[kind];
      var box = section.querySelector("[data-blank-box=\"" + n + "\"]");
      box.classList.add({ ok: "is-right", part: "is-part", bad: "is-wrong" }[kind]);
      box.setAttribute("data-mark", kind);
      var inline = uiLang(el("span", "blank-mark " + kind), q.lang);
      var sym = el("span", "sym", symbol);
      sym.setAttribute("aria-hidden", "true");
      inline.appendChild(sym);
      inline.appendChild(el("span", "visually-hidden", fill(ui.blank_n, n) + ": " + word));
      box.appendChild(inline);
      var li = el("li", "blank-result " + kind);
      li.setAttribute("data-blank-result", String(n));
      var head = uiLang(el("p", "blank-head"), q.lang);
      head.appendChild(el("span", "label", fill(ui.blank_n, n)));
      head.appendChild(el("span", null, ": "));
      head.appendChild(badge(symbol, word, kind, data.uiLang));
      li.appendChild(head);
      if (kind !== "ok") {
        var key = el("p", "key-line");
        key.appendChild(uiLang(el("span", "label", ui.key_answer), q.lang));
        key.appendChild(el("span", null, ": "));
        blankKey(section, b, n).forEach(function (v, i) {
          if (i > 0) {
            key.appendChild(el("span", null, " \u00b7 "));
          }
          var value = el("bdi", "t", v);
          if (b.kind === "number") {
            value.dir = "ltr";
          }
          key.appendChild(value);
        });
        li.appendChild(key);
      }
      var feedbacks = r.picks ? r.picks.map(function (j) { return b.feedback[j]; }) : [r.feedback];
      feedbacks.forEach(function (id) {
        if (id) {
          li.appendChild(feedbackBox(id));
        }
      });
      list.appendChild(li);
    });
    fieldset.appendChild(list);
  }

  // Before another try (a hint that clears wrong parts): every blank short of full credit.
  function clearWrongBlanks(q, section) {
    scoreCloze(q, section).blanks.forEach(function (r, k) {
      if (r.credit < 1 - EPS) {
        blankControls(section, k + 1).forEach(function (c) {
          if (c.tagName === "SELECT" || c.type === "text") {
            c.value = "";
          } else {
            c.checked = false;
          }
        });
      }
    });
  }

  function orderList(section) {
    return section.querySelector("ol[data-role=ordering]");
  }

  function itemIndex(li) {
    return Number(li.getAttribute("data-item-index"));
  }

  function shownItems(list) {
    return slice(list.children).filter(function (li) { return !li.hidden; });
  }

  // An attempt's items (qtype_ordering's start_attempt): every one, select_count of them drawn
  // at random and kept in their right order, or select_count adjacent ones from a random
  // start; then shuffled, again while they stand in the right order (never shown solved).
  function drawOrdering(q, section) {
    var o = q.ordering;
    var list = orderList(section);
    var all = slice(list.children);
    all.sort(function (x, y) { return itemIndex(x) - itemIndex(y); });
    var n = all.length;
    var k = o.select === "all" ? n : Math.min(n, Math.max(2, o.selectCount));
    var shown = all.map(function (_, i) { return i; });
    if (k < n && o.select === "random") {
      shown = sample(random, shown, k);
    } else if (k < n) {
      var start = below(random, n - k + 1);
      shown = shown.slice(start, start + k);
    }
    var order = shuffled(random, shown);
    while (order.join() === shown.join()) {
      order = shuffled(random, shown);
    }
    all.forEach(function (li) { li.hidden = shown.indexOf(itemIndex(li)) < 0; });
    order.forEach(function (i) { list.appendChild(all[i]); });
    all.forEach(function (li) {
      if (li.hidden) {
        list.appendChild(li);
      }
    });
    updateMoves(list);
  }

  // The first item cannot go up nor the last down: their buttons say so (aria-disabled, not
  // disabled, so that the focus stays on a button that has just moved its item to the end).
  function updateMoves(list) {
    var items = shownItems(list);
    items.forEach(function (li, p) {
      li.querySelector("[data-action=move-up]").setAttribute("aria-disabled", String(p === 0));
      li.querySelector("[data-action=move-down]").setAttribute("aria-disabled", String(p === items.length - 1));
    });
  }

  // One step up or down; the focus stays on the button pressed (moving an element takes the
  // focus away from it), and the polite live region says where the item now is.
  function moveItem(button) {
    if (state.submitted || button.getAttribute("aria-disabled") === "true") {
      return;
    }
    var li = button.closest("li");
    var list = li.parentNode;
    var items = shownItems(list);
    var p = items.indexOf(li);
    var up = button.getAttribute("data-action") === "move-up";
    var to = up ? p - 1 : p + 1;
    if (to < 0 || to >= items.length) {
      return;
    }
    list.insertBefore(li, up ? items[to] : items[to].nextSibling);
    updateMoves(list);
    button.focus();
    announce.textContent = ui.moved_to.replace("{item}", li.getAttribute("data-item-name"))
      .replace("{n}", String(to + 1)).replace("{total}", String(items.length));
  }

  // qtype_ordering_question::grade_response (scoring.ordering_credit) over Moodle's answer ids
  // (index + 1: 0 is its "no neighbour"), with what each item scored out of what it could
  // (get_ordering_item_score, for show_grading).
  function nextIds(ids, last) {
    var out = {};
    var iMax = ids.length - 1;
    var next = 0;
    if (!last) {
      next = ids[iMax];
      iMax -= 1;
    }
    for (var i = iMax; i >= 0; i--) {
      out[ids[i]] = next;
      next = ids[i];
    }
    return out;
  }

  function prevNextIds(ids, every) {
    var out = {};
    var next = ids.slice();
    var prev = [];
    while (next.length) {
      var id = next.shift();
      out[id] = every ? [prev.slice(), next.slice()] : [[prev.length ? prev[0] : 0], [next.length ? next[0] : 0]];
      prev.unshift(id);
    }
    return out;
  }

  function orderedSubsets(positions, contiguous) {
    var subsets = [];
    positions.forEach(function (value, p) {
      var isNew = true;
      var fresh = [];
      var snapshot = subsets.map(function (s) { return s.slice(); });
      snapshot.forEach(function (subset, s) {
        var end = positions[subset[subset.length - 1]];
        if (value === end + 1) {
          isNew = false;
          subsets[s].push(p);
        } else if (!contiguous && value > end) {
          isNew = false;
          fresh.push(subset);
          subsets[s].push(p);
        }
      });
      if (isNew) {
        fresh.push([p]);
      }
      subsets = subsets.concat(fresh);
    });
    return subsets;
  }

  function orderingScores(grading, correct, current) {
    var got = 0;
    var of = 0;
    var items = {};
    var count = function (list, within) {
      return list.filter(function (v) { return within.indexOf(v) >= 0; }).length;
    };
    if (grading === "all_or_nothing" || grading === "absolute_position") {
      correct.forEach(function (id, p) {
        var ok = current[p] === id ? 1 : 0;
        got += ok;
        of += 1;
        items[current[p]] = [ok, 1];
      });
      if (grading === "all_or_nothing" && got < of) {
        got = 0;
      }
    } else if (grading === "relative_next_exclude_last" || grading === "relative_next_include_last") {
      var last = grading === "relative_next_include_last";
      var curNext = nextIds(current, last);
      var corNext = nextIds(correct, last);
      Object.keys(corNext).forEach(function (id) {
        var ok = id in curNext && curNext[id] === corNext[id] ? 1 : 0;
        got += ok;
        of += 1;
        items[id] = [ok, 1];
      });
    } else if (grading === "relative_one_previous_and_next" || grading === "relative_all_previous_and_next") {
      var every = grading === "relative_all_previous_and_next";
      var curPn = prevNextIds(current, every);
      var corPn = prevNextIds(correct, every);
      Object.keys(corPn).forEach(function (id) {
        var right = count(curPn[id][0], corPn[id][0]) + count(curPn[id][1], corPn[id][1]);
        var most = corPn[id][0].length + corPn[id][1].length;
        got += right;
        of += most;
        items[id] = [right, most];
      });
    } else if (grading === "longest_ordered_subset" || grading === "longest_contiguous_subset") {
      var positions = current.map(function (id) { return correct.indexOf(id); });
      var best = [];
      orderedSubsets(positions, grading === "longest_contiguous_subset").forEach(function (subset) {
        if (subset.length > Math.max(1, best.length)) {
          best = subset;
        }
      });
      got = best.length;
      of = current.length;
      current.forEach(function (id, p) { items[id] = [best.indexOf(p) >= 0 ? 1 : 0, 1]; });
    } else if (grading === "relative_to_correct") {
      var most = correct.length - 1;
      correct.forEach(function (id, p) {
        var score = Math.max(0, most - Math.abs(p - current.indexOf(id)));
        got += score;
        of += most;
        items[id] = [score, most];
      });
    }
    return { credit: of === 0 ? 0 : got / of, items: items };
  }

  function scoreOrdering(q, section) {
    var response = shownItems(orderList(section)).map(itemIndex);
    var shown = response.slice().sort(function (x, y) { return x - y; });
    var plus = function (i) { return i + 1; };
    var scores = orderingScores(q.ordering.grading, shown.map(plus), response.map(plus));
    return { credit: snap(scores.credit), items: scores.items, shown: shown, response: response };
  }

  // After submitting: with show_grading, which items scored (all of what they could, part,
  // nothing), as a symbol and in words; and the right order of the items shown.
  function showOrderingResults(q, section, result) {
    var list = orderList(section);
    if (q.ordering.showGrading) {
      shownItems(list).forEach(function (li) {
        var score = result.items[itemIndex(li) + 1];
        if (!score || score[1] === 0) {
          return;
        }
        var kind = score[0] >= score[1] ? "ok" : score[0] > 0 ? "part" : "bad";
        li.classList.add({ ok: "is-right", part: "is-part", bad: "is-wrong" }[kind]);
        var word = kind === "bad" ? ui.item_not_scored : ui.item_scored;
        var symbol = { ok: "\u2713", part: "\u25d0", bad: "\u2717" }[kind];
        var mark = badge(symbol, word + (kind === "part" ? " " + score[0] + "/" + score[1] : ""), kind, q.lang);
        mark.setAttribute("data-role", "item-mark");
        li.appendChild(mark);
      });
    }
    var box = el("div", "ordering-key");
    box.setAttribute("data-role", "ordering-key");
    box.appendChild(uiLang(el("p", "label", ui.correct_order), q.lang));
    var key = el("ol", list.className.replace("ordering", "ordering-key-list"));
    result.shown.forEach(function (i) {
      var li = el("li", "ord-item");
      li.setAttribute("data-key-index", String(i));
      li.appendChild(el("span", "ord-num")).setAttribute("aria-hidden", "true");
      var text = list.querySelector("li[data-item-index=\"" + i + "\"] .ord-text").cloneNode(true);
      li.appendChild(text);
      key.appendChild(li);
    });
    box.appendChild(key);
    section.querySelector("fieldset").appendChild(box);
  }
//#endif
  var scorers = {
    single: scoreChoices,
    multiple: scoreChoices,
    true_false: scoreChoices,
    short_answer: scoreShort,
    numerical: scoreNumber,
    matching: scoreMatching
  };
//#if structured
  scorers.cloze = scoreCloze;
  scorers.ordering = scoreOrdering;
//#endif

  // The combined feedback a credit earns: full, some, none (or a penalty).
  function outcomeOf(credit) {
    return credit >= 1 - EPS ? "correct" : credit > EPS ? "partial" : "incorrect";
  }

  // Whether "n of m right" means something for a question (Moodle counts the right picks of a
  // multiple choice question and the right pairs of a matching one).
  function countsRight(q) {
//#if structured
    if (q.type === "cloze") {
      return true; // its right blanks (qtype_multianswer's hints show the number of right parts)
    }
//#endif
    return q.type === "multiple" || q.type === "matching";
  }

  // ---------------------------------------------------------------- showing results

  // The symbol keeps right/wrong readable without colour; it is decoration for screen
  // readers, which read the word next to it.
  function badge(symbol, text, kind, contentLang) {
    var node = uiLang(el("span", "badge " + kind), contentLang);
    var sym = el("span", "sym", symbol);
    sym.setAttribute("aria-hidden", "true");
    node.appendChild(sym);
    if (text) {
      node.appendChild(document.createTextNode(" " + text));
    }
    return node;
  }

  // A number, a score or a penalty kept left to right in right-to-left text (a leading minus
  // would otherwise move to the other side of its digits).
  function ltr(text, className) {
    var b = el("bdi", className || null, text);
    b.dir = "ltr";
    return b;
  }

  // A UI string with {n} filled in and {cost} as an isolated left-to-right number.
  function withCost(template, n, cost) {
    var span = el("span");
    var at = template.indexOf("{cost}");
    span.appendChild(document.createTextNode(template.slice(0, at).replace("{n}", String(n))));
    span.appendChild(ltr(cost));
    span.appendChild(document.createTextNode(template.slice(at + 6).replace("{n}", String(n))));
    return span;
  }

  function feedbackBox(id, className) {
    var fb = el("div", className || "feedback");
    fb.setAttribute("data-role", "feedback");
    fb.appendChild(cloned(id));
    return fb;
  }

  function showChoiceResults(q, section) {
    choiceInputs(section).forEach(function (input) {
      var i = Number(input.getAttribute("data-choice-index"));
      var li = input.closest("li");
      var lang = li.closest("[lang]").lang;
      if (q.correct.indexOf(i) >= 0) {
        li.classList.add("is-key");
        li.appendChild(badge("\u2713", ui.key_answer, "ok", lang));
      } else if (input.checked && q.credit[i] > EPS / 2) {
        li.classList.add("is-part");
        li.appendChild(badge("\u25d0", ui.partly_correct, "part", lang));
      } else if (input.checked) {
        li.classList.add("is-wrong");
        li.appendChild(badge("\u2717", ui.your_answer, "bad", lang));
      }
      if (input.checked && q.feedback[i]) {
        li.appendChild(feedbackBox(q.feedback[i]));
      }
    });
  }

  function showKeyLine(q, fieldset, label, values, valueDir) {
    var p = el("p", "key-line");
    // The colon stays outside the label so that, in a line of the other direction, it
    // still sits between the label and the values.
    p.appendChild(uiLang(el("span", "label", label), q.lang));
    p.appendChild(el("span", null, ": "));
    values.forEach(function (v, i) {
      if (i > 0) {
        p.appendChild(el("span", null, " \u00b7 "));
      }
      var b = el("bdi", "t", v);
      if (valueDir) {
        b.dir = valueDir;
      }
      p.appendChild(b);
    });
    fieldset.appendChild(p);
  }

  function showMatchingResults(q, section) {
    selects(section).forEach(function (s) {
      var i = Number(s.getAttribute("data-pair-index"));
      var ok = pairRight(q, s);
      var li = s.closest("li");
      li.classList.add(ok ? "is-right" : "is-wrong");
      var line = el("span", "pair-result");
      line.appendChild(badge(ok ? "\u2713" : "\u2717", ok ? ui.correct : ui.key_answer, ok ? "ok" : "bad", q.lang));
      if (!ok) {
        line.appendChild(el("span", null, ": "));
        line.appendChild(el("bdi", "t key-value", q.options[q.key[i]]));
      }
      li.appendChild(line);
    });
  }

  // "2 of 3 right": the right picks or pairs of the response as it stands.
  function numCorrectLine(q, result) {
    var p = el("p", "num-correct", fill(ui.num_correct, result.right, result.of));
    p.setAttribute("data-role", "num-correct");
    return uiLang(p, q.lang);
  }

  // Combined feedback: the question's text for a right, a partly right or a wrong response,
  // and the number right when the question asks for it.
  function showOutcome(q, result, outcome, fieldset) {
    var id = q.outcome ? q.outcome[outcome] : null;
    var count = q.numCorrect && countsRight(q);
    if (!id && !count) {
      return;
    }
    var box = el("div", "outcome-feedback " + outcome);
    box.setAttribute("data-role", "outcome-feedback");
    if (count) {
      box.appendChild(numCorrectLine(q, result));
    }
    if (id) {
      box.appendChild(cloned(id));
    }
    fieldset.appendChild(box);
  }

  // The answer is shown back as text (line breaks kept, nothing clipped by the textarea's
  // scroll box) in place of the textarea; an essay without an answer box has nothing to show.
  function showEssay(section) {
    var textarea = section.querySelector("textarea");
    if (!textarea) {
      return;
    }
    var copy = el("div", "essay-copy t", textarea.value);
    copy.dir = "auto";
    copy.setAttribute("data-role", "essay-copy");
    textarea.after(copy);
    textarea.hidden = true;
  }

  function showExplanation(q, fieldset) {
    if (!q.explanation) {
      return;
    }
    var box = el("div", "explanation");
    box.setAttribute("data-role", "explanation");
    box.appendChild(el("p", "label")).appendChild(uiLang(el("span", null, ui.explanation), q.lang));
    box.appendChild(cloned(q.explanation));
    fieldset.appendChild(box);
  }

  // deducted: what the hints taken cost this question (0 when its mark was 0 or less anyway).
  function showMark(q, mark, outcome, earned, taken, deducted) {
    if (q.type === "essay") {
      mark.textContent = ui.ungraded;
      return;
    }
    var symbol = { correct: "\u2713", partial: "\u25d0", incorrect: "\u2717" }[outcome];
    var word = { correct: ui.correct, partial: ui.partly_correct, incorrect: ui.incorrect }[outcome];
    var sym = el("span", "sym", symbol);
    sym.setAttribute("aria-hidden", "true");
    mark.appendChild(sym);
    mark.appendChild(el("span", null, " " + word + " "));
    mark.appendChild(ltr("(" + fmt(earned) + "/" + fmt(q.points) + ")"));
    if (deducted > 0) {
      mark.appendChild(el("span", null, " \u00b7 "));
      mark.appendChild(withCost(ui.hint_penalty, taken, "\u2212" + fmt(deducted)));
    }
  }

  // A submitted question's controls are disabled one by one, not through fieldset.disabled:
  // axe-core counts everything inside a disabled fieldset as unfocusable, a code block that
  // scrolls sideways too (browsers keep it focusable, and it must stay so to be scrolled).
  function lock(fieldset, locked) {
    slice(fieldset.querySelectorAll("input, select, textarea, button")).forEach(function (c) {
      c.disabled = locked;
    });
  }

  function grade() {
    var earned = 0;
    var max = 0;
    state.active.forEach(function (idx) {
      var section = questions[idx];
      var q = data.questions[idx];
      var fieldset = section.querySelector("fieldset");
      var result = null;
      var outcome = null;
      var mark = 0;
      var taken = state.hints[idx] || 0;
      var deducted = 0;
      if (q.type === "essay") {
        section.setAttribute("data-result", "ungraded");
        showEssay(section);
//#if structured
      } else if (q.type === "description") {
        // Nothing to score: its explanation (Moodle's general feedback), if any, and no mark.
        showExplanation(q, section.querySelector("[data-role=description]"));
        return;
//#endif
      } else {
        result = scorers[q.type](q, section);
        outcome = outcomeOf(result.credit);
        mark = result.credit * q.points;
        // Each hint taken costs the question's penalty, as a Moodle retry would, never taking
        // the mark below 0 (a negative credit's mark stays what it is).
        if (taken && mark > 0) {
          deducted = Math.min(mark, taken * q.penalty * q.points);
          mark -= deducted;
        }
        earned += mark;
        max += q.points;
        section.setAttribute("data-result", outcome);
      }
      if (q.correct) {
        showChoiceResults(q, section);
      } else if (q.type === "short_answer") {
        showKeyLine(q, fieldset, ui.accepted_answers, q.answers.filter(function (_, i) {
          return shortCredit(q, i) >= 1 - EPS;
        }), null);
      } else if (q.type === "numerical") {
        showKeyLine(q, fieldset, ui.key_answer, [q.keyText], "ltr");
      } else if (q.type === "matching") {
        showMatchingResults(q, section);
//#if structured
      } else if (q.type === "cloze") {
        showClozeResults(q, section, result);
      } else if (q.type === "ordering") {
        showOrderingResults(q, section, result);
//#endif
      }
      if (result && result.feedback) {
        fieldset.appendChild(feedbackBox(result.feedback));
      }
      if (result) {
        showOutcome(q, result, outcome, fieldset);
      }
      showExplanation(q, fieldset);
      showMark(q, section.querySelector("[data-role=mark]"), outcome, mark, taken, deducted);
      lock(fieldset, true);
    });
    slice(form.querySelectorAll("[data-role=hint-action]")).forEach(function (n) { n.hidden = true; });
    // A question's negative mark counts against the others, but the quiz never scores below 0.
    scoreEl.textContent = fmt(Math.max(0, earned)) + "/" + fmt(max);
    // The summary appears with the result; a live region that was hidden until now is not
    // reliably announced, so an always-present one says it too.
    announce.textContent = summary.querySelector(".score-line").textContent;
    summary.hidden = false;
    state.submitted = true;
    state.mode = "all";
    retryBtn.hidden = false;
    render();
    summary.focus();
  }

  // ---------------------------------------------------------------- hints

  // The wrong parts of a response, cleared before the learner tries again (Moodle's "clear
  // incorrect responses"): wrong picks, wrong pairs, a typed answer short of full credit.
  function clearWrong(q, section) {
    if (q.correct) {
      choiceInputs(section).forEach(function (input) {
        if (input.checked && !rightPick(q, Number(input.getAttribute("data-choice-index")))) {
          input.checked = false;
        }
      });
    } else if (q.type === "matching") {
      selects(section).forEach(function (s) {
        if (!pairRight(q, s)) {
          s.value = "";
        }
      });
    } else if (q.type === "short_answer" || q.type === "numerical") {
      if (scorers[q.type](q, section).credit < 1 - EPS) {
        section.querySelector("[data-role=answer-input]").value = "";
      }
//#if structured
    } else if (q.type === "cloze") {
      clearWrongBlanks(q, section);
//#endif
    }
  }

  // The question's next hint, on request before submitting: shown in its live region (so
  // it is announced), one at a time in order, each costing the question's penalty.
  function takeHint(idx) {
    var q = data.questions[idx];
    var section = questions[idx];
    var n = state.hints[idx] || 0;
    if (state.submitted || !q.hints || n >= q.hints.length) {
      return;
    }
    var hint = q.hints[n];
    state.hints[idx] = n + 1;
    var node = cloned(hint.id).firstElementChild;
    node.setAttribute("data-added", "");
    if (hint.numCorrect && countsRight(q)) {
      node.appendChild(numCorrectLine(q, scorers[q.type](q, section)));
    }
    if (hint.clearWrong) {
      clearWrong(q, section);
    }
    section.querySelector("[data-role=hints]").appendChild(node);
    if (n + 1 === q.hints.length) {
      // The button goes with the last hint: focus moves to that hint rather than to nowhere.
      section.querySelector("[data-role=hint-action]").hidden = true;
      node.tabIndex = -1;
      node.focus();
    }
  }

  // ---------------------------------------------------------------- essays

  function countWords(text) {
    var t = text.trim();
    return t ? t.split(/\s+/).length : 0;
  }

  // An essay's word count against its limits, as the learner types.
  function updateWords(section, q) {
    var out = section.querySelector("[data-role=word-count]");
    var textarea = section.querySelector("textarea");
    if (!out || !textarea) {
      return;
    }
    var n = countWords(textarea.value);
    var off = q.minWords !== undefined && n < q.minWords ? ui.too_few_words
      : q.maxWords !== undefined && n > q.maxWords ? ui.too_many_words : null;
    out.textContent = fill(ui.words, n) + (off ? " (" + off + ")" : "");
    out.classList.toggle("off-limits", off !== null);
  }

  function updateAllWords() {
    questions.forEach(function (section, i) { updateWords(section, data.questions[i]); });
  }

  function showHintButtons() {
    slice(form.querySelectorAll("[data-role=hint-action]")).forEach(function (n) { n.hidden = false; });
  }

  function reset() {
    slice(form.querySelectorAll("[data-added]")).forEach(function (n) {
      n.remove();
    });
    questions.forEach(function (section) {
      section.removeAttribute("data-result");
//#if structured
      if (section.getAttribute("data-type") === "description") {
        return;
      }
//#endif
      section.querySelector("[data-role=mark]").textContent = "";
      lock(section.querySelector("fieldset"), false);
      slice(section.querySelectorAll("textarea")).forEach(function (t) {
        t.hidden = false;
      });
      slice(section.querySelectorAll(".is-key, .is-wrong, .is-right, .is-part")).forEach(
        function (n) { n.classList.remove("is-key", "is-wrong", "is-right", "is-part"); }
      );
    });
    form.reset();
    scoreEl.textContent = "";
    announce.textContent = "";
    summary.hidden = true;
    retryBtn.hidden = true;
    state.submitted = false;
    state.current = 0;
    state.hints = {};
    showHintButtons();
    updateAllWords();
    drawAttempt();
    render();
    var first = questions[state.active[0]].querySelector("input, select, textarea");
    if (first) {
      first.focus();
    }
  }

  form.addEventListener("submit", function (event) {
    event.preventDefault();
    if (!state.submitted) {
      grade();
    }
  });
  // Enter in a one-line answer would submit the whole quiz by implicit submission.
  form.addEventListener("keydown", function (event) {
    if (event.key === "Enter" && event.target.tagName === "INPUT" && event.target.type === "text") {
      event.preventDefault();
    }
  });
  form.addEventListener("click", function (event) {
    var button = event.target.closest("[data-action=hint]");
    if (button) {
      takeHint(questions.indexOf(button.closest("section[data-question-id]")));
    }
//#if structured
    var move = event.target.closest("[data-action=move-up], [data-action=move-down]");
    if (move) {
      moveItem(move);
    }
//#endif
  });
  form.addEventListener("input", function (event) {
    if (event.target.tagName === "TEXTAREA") {
      var section = event.target.closest("section[data-question-id]");
      updateWords(section, data.questions[questions.indexOf(section)]);
    }
  });
  toggle.addEventListener("click", function () {
    state.mode = state.mode === "one" ? "all" : "one";
    render();
  });
  prevBtn.addEventListener("click", function () { go(-1); });
  nextBtn.addEventListener("click", function () { go(1); });
  retryBtn.addEventListener("click", reset);

  document.documentElement.classList.add("js");
  slice(document.querySelectorAll("[data-role=toolbar], [data-role=actions]"))
    .forEach(function (n) { n.hidden = false; });
  showHintButtons();
  updateAllWords();
  drawAttempt();
  render();
})();
