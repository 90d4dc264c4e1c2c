// Scores the quiz in the browser. Keys, feedback and explanations come from the JSON data
// block and are injected only on submit. Every injected text goes through textContent,
// never innerHTML, so no source text can become markup. Keep this file ASCII: its sha256
// is in the page's Content-Security-Policy.
(function () {
  "use strict";
  var form = document.querySelector("form[data-quiz-id]");
  var dataEl = document.getElementById("lmsx-data");
  if (!form || !dataEl) {
    return;
  }
  var data = JSON.parse(dataEl.textContent);
  var ui = data.ui;
  var sections = Array.prototype.slice.call(form.querySelectorAll("section[data-question-id]"));
  var summary = document.querySelector("[data-role=summary]");
  var scoreEl = document.querySelector("[data-role=score]");
  var announce = document.querySelector("[data-role=announce]");
  var nav = form.querySelector("[data-role=nav]");
  var position = form.querySelector("[data-role=position]");
  var toggle = form.querySelector("[data-action=toggle-view]");
  var prevBtn = form.querySelector("[data-action=previous]");
  var nextBtn = form.querySelector("[data-action=next]");
  var retryBtn = form.querySelector("[data-action=retry]");
  var state = { mode: "one", current: 0, submitted: false };

  function fill(template, n, total) {
    return template.replace("{n}", String(n)).replace("{total}", String(total));
  }

  // Points never need more than two decimals; String() drops a trailing ".0".
  function fmt(n) {
    return String(Math.round(n * 100) / 100);
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
    sections.forEach(function (s, i) {
      s.hidden = one && i !== state.current;
    });
    nav.hidden = !one;
    toggle.textContent = one ? ui.review_all : ui.one_at_a_time;
    position.textContent = one ? fill(ui.question_of, state.current + 1, sections.length) : "";
    prevBtn.disabled = state.current === 0;
    nextBtn.disabled = state.current === sections.length - 1;
  }

  function go(delta) {
    state.current = Math.min(sections.length - 1, Math.max(0, state.current + delta));
    render();
  }

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
    return Array.prototype.slice.call(section.querySelectorAll("input[data-choice-index]"));
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

  function scoreChoices(q, section) {
    var chosen = picked(section);
    var right = chosen.filter(function (i) { return q.correct.indexOf(i) >= 0; }).length;
    var wrong = chosen.length - right;
    var full = right === q.correct.length && wrong === 0;
    if (q.type !== "multiple") {
      return { earned: full ? q.points : 0, full: full };
    }
    var per = q.points / q.correct.length;
    return { earned: full ? q.points : Math.max(0, (right - wrong) * per), full: full };
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
    return Array.prototype.slice.call(section.querySelectorAll("select[data-pair-index]"));
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
        var fb = el("p", "feedback t", q.feedback[i]);
        fb.setAttribute("data-role", "feedback");
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
    box.appendChild(el("p", "t", q.explanation));
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
    sections.forEach(function (section, idx) {
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
    Array.prototype.slice.call(form.querySelectorAll("[data-added]")).forEach(function (n) {
      n.remove();
    });
    sections.forEach(function (section) {
      section.removeAttribute("data-result");
      section.querySelector("[data-role=mark]").textContent = "";
      section.querySelector("fieldset").disabled = false;
      Array.prototype.slice.call(section.querySelectorAll("textarea")).forEach(function (t) {
        t.hidden = false;
      });
      Array.prototype.slice.call(section.querySelectorAll(".is-key, .is-wrong, .is-right")).forEach(
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
    render();
    var first = form.querySelector("input, select, textarea");
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
  Array.prototype.slice.call(document.querySelectorAll("[data-role=toolbar], [data-role=actions]"))
    .forEach(function (n) { n.hidden = false; });
  render();
})();
