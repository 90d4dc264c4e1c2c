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
  var state = { mode: "one", current: 0, submitted: false, active: [] };

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
    active.forEach(function (i, n) {
      var section = questions[i];
      section.setAttribute("data-position", String(n + 1));
      section.querySelector(".qnum").textContent = fill(ui.question_of, n + 1, active.length);
      if (data.questions[i].shuffle) {
        shuffleChoices(section);
      }
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
    position.textContent = one ? fill(ui.question_of, state.current + 1, total) : "";
    prevBtn.disabled = state.current === 0;
    nextBtn.disabled = state.current === total - 1;
  }

  function go(delta) {
    state.current = Math.min(state.active.length - 1, Math.max(0, state.current + delta));
    render();
  }

  // ---------------------------------------------------------------- scoring

  // Numbers as typed on Urdu and Arabic keyboards: Arabic-Indic and Extended Arabic-Indic
  // digits, the Arabic decimal separator or a comma, a Unicode minus, and invisible bidi
  // marks that RTL input methods insert.
  function parseNumber(raw) {
    var s = raw.normalize("NFKC")
      .replace(/[\u200e\u200f\u061c\u202a-\u202e\u2066-\u2069]/g, "")
      .replace(/[\u0660-\u0669]/g, function (d) { return String(d.charCodeAt(0) - 0x660); })
      .replace(/[\u06f0-\u06f9]/g, function (d) { return String(d.charCodeAt(0) - 0x6f0); })
      .replace(/[\u066b,]/g, ".")
      .replace(/[\u2212\u2012\u2013\ufe63]/g, "-")
      .replace(/[\s\u066c]/g, "");
    if (!/^[+-]?(\d+(\.\d*)?|\.\d+)(e[+-]?\d+)?$/i.test(s)) {
      return NaN;
    }
    return Number(s);
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

  // Question.choice_credit() of the model: the picks' credits summed, floored at 0; full
  // marks only for exactly the keyed choices.
  function scoreChoices(q, section) {
    var chosen = picked(section);
    var credit = 0;
    chosen.forEach(function (i) { credit += q.credit[i]; });
    var full = chosen.length === q.correct.length && chosen.every(function (i) {
      return q.correct.indexOf(i) >= 0;
    });
    var earned = full ? q.points : Math.min(q.points, Math.max(0, credit * q.points));
    return { earned: earned, full: full };
  }

  function scoreShort(q, section) {
    var given = normalize(answerText(section), q.caseSensitive);
    var full = given !== "" && q.answers.some(function (a) {
      return normalize(a, q.caseSensitive) === given;
    });
    return { earned: full ? q.points : 0, full: full };
  }

  function scoreNumber(q, section) {
    var v = parseNumber(answerText(section));
    var lo = q.bounds[0];
    var hi = q.bounds[1];
    var slack = 1e-9 * Math.max(1, Math.abs(lo), Math.abs(hi));
    var full = isFinite(v) && v >= lo - slack && v <= hi + slack;
    return { earned: full ? q.points : 0, full: full };
  }

  function selects(section) {
    return slice(section.querySelectorAll("select[data-pair-index]"));
  }

  function scoreMatching(q, section) {
    var right = selects(section).filter(function (s) {
      return s.value === String(q.key[Number(s.getAttribute("data-pair-index"))]);
    }).length;
    var full = right === q.key.length;
    return { earned: full ? q.points : (q.points * right) / q.key.length, full: full };
  }

  var scorers = {
    single: scoreChoices,
    multiple: scoreChoices,
    true_false: scoreChoices,
    short_answer: scoreShort,
    numerical: scoreNumber,
    matching: scoreMatching
  };

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

  function showChoiceResults(q, section) {
    choiceInputs(section).forEach(function (input) {
      var i = Number(input.getAttribute("data-choice-index"));
      var li = input.closest("li");
      var lang = li.closest("[lang]").lang;
      if (q.correct.indexOf(i) >= 0) {
        li.classList.add("is-key");
        li.appendChild(badge("\u2713", ui.key_answer, "ok", lang));
      } else if (input.checked) {
        li.classList.add("is-wrong");
        li.appendChild(badge("\u2717", ui.your_answer, "bad", lang));
      }
      if (input.checked && q.feedback[i]) {
        var fb = el("div", "feedback");
        fb.setAttribute("data-role", "feedback");
        fb.appendChild(cloned(q.feedback[i]));
        li.appendChild(fb);
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
      var ok = s.value === String(q.key[i]);
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

  // The answer is shown back as text (line breaks kept, nothing clipped by the textarea's
  // scroll box) in place of the textarea.
  function showEssay(section) {
    var textarea = section.querySelector("textarea");
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

  function showMark(q, result, mark) {
    if (q.type === "essay") {
      mark.textContent = ui.ungraded;
      return;
    }
    var pts = " (" + fmt(result.earned) + "/" + fmt(q.points) + ")";
    var partly = !result.full && result.earned > 0;
    var symbol = result.full ? "\u2713" : partly ? "\u25d0" : "\u2717";
    var word = result.full ? ui.correct : partly ? ui.partly_correct : ui.incorrect;
    var sym = el("span", "sym", symbol);
    sym.setAttribute("aria-hidden", "true");
    mark.appendChild(sym);
    mark.appendChild(el("span", null, " " + word + pts));
  }

  function grade() {
    var earned = 0;
    var max = 0;
    state.active.forEach(function (idx) {
      var section = questions[idx];
      var q = data.questions[idx];
      var fieldset = section.querySelector("fieldset");
      var result = null;
      if (q.type === "essay") {
        section.setAttribute("data-result", "ungraded");
        showEssay(section);
      } else {
        result = scorers[q.type](q, section);
        earned += result.earned;
        max += q.points;
        section.setAttribute("data-result", result.full ? "correct" : "incorrect");
      }
      if (q.correct) {
        showChoiceResults(q, section);
      } else if (q.type === "short_answer") {
        showKeyLine(q, fieldset, ui.accepted_answers, q.answers, null);
      } else if (q.type === "numerical") {
        showKeyLine(q, fieldset, ui.key_answer, [q.keyText], "ltr");
      } else if (q.type === "matching") {
        showMatchingResults(q, section);
      }
      showExplanation(q, fieldset);
      showMark(q, result, section.querySelector("[data-role=mark]"));
      fieldset.disabled = true;
    });
    scoreEl.textContent = fmt(earned) + "/" + fmt(max);
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

  function reset() {
    slice(form.querySelectorAll("[data-added]")).forEach(function (n) {
      n.remove();
    });
    questions.forEach(function (section) {
      section.removeAttribute("data-result");
      section.querySelector("[data-role=mark]").textContent = "";
      section.querySelector("fieldset").disabled = false;
      slice(section.querySelectorAll("textarea")).forEach(function (t) {
        t.hidden = false;
      });
      slice(section.querySelectorAll(".is-key, .is-wrong, .is-right")).forEach(
        function (n) { n.classList.remove("is-key", "is-wrong", "is-right"); }
      );
    });
    form.reset();
    scoreEl.textContent = "";
    announce.textContent = "";
    summary.hidden = true;
    retryBtn.hidden = true;
    state.submitted = false;
    state.current = 0;
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
  drawAttempt();
  render();
})();
