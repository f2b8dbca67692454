/* Docent web UI: a little JavaScript over server-rendered pages. No build step, no CDN.
   Every value from the server goes into the page through textContent, never as HTML. */
"use strict";

const csrf = () => document.querySelector('meta[name="csrf-token"]')?.content || "";

async function api(path, { method = "GET", json, form } = {}) {
  const headers = { Accept: "application/json" };
  if (method !== "GET") headers["X-CSRF-Token"] = csrf();
  let body;
  if (json !== undefined) {
    headers["Content-Type"] = "application/json";
    body = JSON.stringify(json);
  } else if (form) {
    body = form;
  }
  const res = await fetch(path, { method, headers, body, credentials: "same-origin" });
  let data = null;
  try { data = await res.json(); } catch (_) { /* empty body */ }
  if (res.status === 401) { window.location = "/login?next=" + encodeURIComponent(location.pathname); }
  if (!res.ok) {
    const err = new Error(data?.error?.message || `Request failed (${res.status})`);
    err.status = res.status;
    err.details = data?.error?.details;
    throw err;
  }
  return data;
}

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === null || v === undefined || v === false) continue;
    if (k === "class") node.className = v;
    else if (k === "text") node.textContent = v;
    else if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
    else node.setAttribute(k, v === true ? "" : v);
  }
  for (const c of children.flat()) {
    if (c === null || c === undefined || c === false) continue;
    node.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return node;
}

const STATUS = { current: "Current", superseded: "Superseded", pending: "Not yet in force" };
const badge = (status) => el("span", { class: `badge badge-${status}`, text: STATUS[status] || status });
// A listed passage's version: its status badge, with the date it took effect.
const versionBadge = (r, mixed) => (r.status !== "current" || mixed
  ? [" ", badge(r.status), r.effective ? el("span", { class: "muted small", text: ` · effective ${r.effective}` }) : null]
  : null);
const passageHref = (id, quote) =>
  `/passages/${id.split("/").map(encodeURIComponent).join("/")}` + (quote ? `?quote=${encodeURIComponent(quote)}` : "");

/* ---------- Tables in answers ---------- */
const cellsOf = (line) => line.trim().replace(/^\|/, "").replace(/\|$/, "").split("|").map((c) => c.trim());
const isRule = (line) => /^\|?\s*:?-{2,}:?\s*(\|\s*:?-{2,}:?\s*)*\|?$/.test(line.trim());
function tableEl(header, rows, cls) {
  return el("table", { class: cls },
    el("thead", {}, el("tr", {}, header.map((h) => el("th", { scope: "col", text: h })))),
    el("tbody", {}, rows.map((r) => el("tr", {}, r.map((c) => el("td", { text: c }))))));
}
// A table wider than its card scrolls sideways inside it; the region takes the keyboard focus
// so it can be scrolled without a pointer.
const scrollingTable = (table) =>
  el("div", { class: "table-scroll", tabindex: "0", role: "region", "aria-label": "Table (scrolls sideways)" }, table);
// Split answer text into prose and tables: a run of lines starting with "|" is a table;
// text after its last cell (the citation marker) stays with it. A table may start within a
// line, after a label ("Under the superseded version (…): | Plan | Price |"), when the next
// line is its rule.
function answerSegments(text) {
  const segments = [];
  let prose = [];
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    let labelEnd = null;
    if (!lines[i].trim().startsWith("|")) {
      const at = lines[i].indexOf("|");
      if (at < 0 || i + 1 >= lines.length || !lines[i + 1].includes("|") || !isRule(lines[i + 1])) { prose.push(lines[i]); continue; }
      prose.push(lines[i].slice(0, at));
      lines[i] = lines[i].slice(at);
      labelEnd = prose.join("\n");
    }
    const run = [];
    while (i < lines.length && lines[i].trim().startsWith("|")) run.push(lines[i++]);
    i--;
    if (prose.length) segments.push({ text: prose.join("\n") });
    prose = [];
    const last = run[run.length - 1];
    const cut = last.lastIndexOf("|");
    const after = last.slice(cut + 1);
    run[run.length - 1] = last.slice(0, cut + 1);
    const body = run.filter((l) => !isRule(l));
    const table = { header: cellsOf(body[0]), rows: body.slice(1).map(cellsOf) };
    const labelled = labelEnd !== null && segments.length && segments[segments.length - 1].text === labelEnd;
    if (labelled && after.trim()) {
      // The table's citation ends its label's line ("Under the superseded version (…): [1]"),
      // not the start of the next version's label under the table.
      const label = segments[segments.length - 1];
      label.text = `${label.text.trimEnd()} ${after.trim()}`;
      segments.push({ table, after: "" });
    } else {
      segments.push({ table, after });
    }
  }
  if (prose.length) segments.push({ text: prose.join("\n") });
  return segments;
}

/* ---------- Ask ---------- */
function renderAnswer(data, question, { focus = true } = {}) {
  try { sessionStorage.setItem("docent:last", JSON.stringify({ data, question })); } catch (_) { /* private mode */ }
  const box = document.getElementById("result");
  box.replaceChildren();
  box.hidden = false;
  if (data.outcome === "answered") {
    const cites = data.citations || [];
    const num = new Map(cites.map((c, i) => [c.id, i + 1]));
    const answer = el("div", { class: "answer-text" });
    const used = new Set();
    // Citation markers: "[<id>]" in the text become numbered links; else listed after.
    const withCitations = (target, text) => {
      String(text).split(/\[([^\]]+)\]/).forEach((part, i) => {
        if (i % 2 === 1 && num.has(part)) {
          used.add(part);
          const c = cites[num.get(part) - 1];
          target.append(el("a", { class: "cite", href: passageHref(c.id, c.quote), "aria-label": `Source ${num.get(part)}: ${c.source}` }, String(num.get(part))));
        } else if (i % 2 === 1) {
          target.append(`[${part}]`);
        } else {
          target.append(part);
        }
      });
    };
    // A quoted table row comes as Markdown pipe lines: show it as a table.
    answerSegments(String(data.answer || "")).forEach((seg) => {
      if (seg.table) {
        answer.append(scrollingTable(tableEl(seg.table.header, seg.table.rows, "answer-table")));
        withCitations(answer, seg.after);
      } else {
        withCitations(answer, seg.text);
      }
    });
    cites.forEach((c, i) => {
      if (!used.has(c.id)) answer.append(" ", el("a", { class: "cite", href: passageHref(c.id, c.quote), "aria-label": `Source ${i + 1}: ${c.source}` }, String(i + 1)));
    });
    const list = el("ol", { class: "citations" }, cites.map((c, i) =>
      el("li", { class: `citation status-${c.status}` },
        el("a", { class: "citation-link", href: passageHref(c.id, c.quote) },
          el("span", { class: "cite-num", text: String(i + 1) }),
          el("span", { class: "citation-body" },
            el("span", { class: "citation-title" }, (c.heading_path || []).join(" › ") || c.source),
            el("span", { class: "citation-meta" },
              el("code", { text: c.source }),
              c.effective ? ` · effective ${c.effective}` : "",
              " ", badge(c.status)),
            !c.table && c.quote ? el("q", { class: "citation-quote", text: c.quote }) : null)),
        // A quoted table row sits below the link, where its table may scroll sideways.
        c.table ? scrollingTable(tableEl(c.table.header, c.table.rows, "citation-table")) : null)));
    const superseded = cites.some((c) => c.status !== "current");
    box.append(el("article", { class: "card answer" },
      el("p", { class: "eyebrow", text: data.confidence != null ? `Answer · checked against the documents · confidence ${Math.round(data.confidence * 100)}%` : "Answer · checked against the documents" }), answer,
      superseded ? el("div", { class: "alert alert-warn", role: "note" }, "Some sources are superseded or not yet in force — check their status before relying on them.") : null,
      el("h2", { class: "section-title small-title", text: "Sources" }), list,
      data.tier === "answer" ? feedbackControls(data) : null,
      handoffOffer(data, question, true)));
  } else {
    const messages = {
      insufficient_evidence: nonanswerTitle(data),
      ambiguous: ["Your question could mean more than one thing.", data.clarifying_question || "Could you say which you mean?"],
      declined: ["Docent can't answer this one.", reasonText(data.reason_code)],
    };
    const [reasonTitle, detail] = messages[data.outcome] || ["No answer from the documents.", "The answer could not be checked against the documents."];
    // The tier in words first (the CLI's wording: generate/views.py TIER_LINES).
    const probably = data.tier === "probably_here";
    const title = probably ? "Not a checked answer: the answer is probably in these passages." : data.tier === "not_covered" && data.reason_code !== "version_not_found" ? "The documents you can read don't seem to cover this." : reasonTitle;
    const card = el("article", { class: `card nonanswer tier-${data.tier || "unknown"}` },
      el("p", { class: "eyebrow", text: probably ? "Probably here" : "Not covered" }),
      el("h2", { class: "nonanswer-title", text: title }),
      el("p", { class: "muted", text: probably ? `${reasonTitle} ${detail}` : detail }));
    // Passages matched but none was quoted as a checked answer: the server lists the
    // closest the asker may read (`closest`), the answer most probably among them.
    const closest = data.closest || [];
    if (closest.length) {
      // Each with its unit nearest the question, highlighted: not a checked answer.
      // Not covered: nothing cleared the relevance bar, so these are only the nearest (the
      // CLI's wording: generate/views.py).
      const lead = probably || data.reason_code === "version_not_found"
        ? "Read these first: each passage with its sentence nearest your question (not a checked answer):"
        : "Nearest passages, a weak match (they may not hold the answer):";
      // Among old or pending passages, today's are labelled too: a user pass read today's
      // rule, unlabelled under a question about the 2022 policy, as the 2022 rule.
      const mixed = closest.some((r) => r.status !== "current");
      card.append(el("p", { class: "muted small", text: lead }),
        el("ul", { class: "closest" }, closest.map((r) =>
          el("li", {},
            el("a", { href: passageHref(r.id, r.nearest || undefined) }, (r.heading_path || []).join(" › ") || r.source),
            " ", el("code", { text: r.source }),
            versionBadge(r, mixed),
            r.excerpt ? excerptEl(r) : null,
            // Also on a weak match: the asker finding the answer there means it is no gap.
            data.trace_id ? feedbackControls(data, r.id) : null))));
      if (probably && data.trace_id) card.append(feedbackControls(data));
    }
    if (data.outcome === "ambiguous" && (data.readings || []).length) {
      card.append(el("p", { class: "muted small", text: "Did you mean:" }),
        el("div", { class: "readings" }, data.readings.map((r) =>
          el("button", { type: "button", class: "btn btn-quiet", onclick: () => { document.getElementById("question").value = r; askNow(); } }, r))));
    }
    card.append(handoffOffer(data, question, false));
    box.append(card);
  }
  if (focus) box.focus();
}

// A closest passage's excerpt with its unit nearest the question marked.
function excerptEl(r) {
  const quote = el("blockquote", { class: "excerpt" });
  const at = r.nearest ? r.excerpt.indexOf(r.nearest) : -1;
  if (at < 0) { quote.textContent = r.excerpt; return quote; }
  quote.append(r.excerpt.slice(0, at), el("mark", { text: r.nearest }), r.excerpt.slice(at + r.nearest.length));
  return quote;
}

const SUPERSEDED_ONLY = "What was drafted quotes only a superseded version, without today's rule beside it, so it is not shown: read the passages below.";

// What a non-answer says first, by its reason (the CLI's wording: generate/views.py).
function nonanswerTitle(data) {
  switch (data.reason_code) {
    case "below_threshold":
      return ["The documents don't cover this.", data.missing || "None of the passages you can read answer this question."];
    case "model_abstained":
      return ["No direct answer in the documents.", data.missing || "None of the passages found states an answer to this question."];
    case "version_not_found":
      return ["No passage of that version matches the question.", "The passages that do are of a later version; the closest are below, for comparison."];
    case "unclear_evidence":
      return ["Not clear enough to quote as the answer.", data.missing || "None of the passages found stands out as the answer."];
    case "superseded_cited":
      return [SUPERSEDED_ONLY, "The closest passages are below; none is a checked answer."];
    default:
      return ["What was drafted did not hold up against the documents, so it is not shown.", data.missing || "Ask a person, or rephrase the question."];
  }
}

function reasonText(code) {
  return { out_of_scope: "This is outside what the documents cover.", requires_human: "This needs a person's judgement.", policy: "This is not something Docent answers.", model_unavailable: "The answering model is not available right now.", fabricated_citation: "The drafted answer cited a document it was not given, so it is not shown." }[code] || "This needs a person.";
}

function handoffOffer(data, question, quiet) {
  const wrap = el("div", { class: quiet ? "handoff-offer quiet" : "handoff-offer" });
  const owner = data.handoff?.owner;
  const btn = el("button", { type: "button", class: quiet ? "btn btn-quiet" : "btn btn-primary", id: "handoff-button" }, "Ask a person");
  const note = el("span", { class: "muted small", text: quiet ? "Not what you needed?" : (owner ? `It will go to ${owner}, who owns the closest document.` : "It will go to the docs team.") });
  // Optional context for the person (a user pass: one click sent the bare question).
  const added = quiet ? null : el("input", { type: "text", class: "handoff-note", maxlength: "2000", "aria-label": "A note for them (optional)", placeholder: "A note for them (optional)" });
  btn.addEventListener("click", async () => {
    btn.disabled = true;
    btn.textContent = "Sending…";
    try {
      const h = await api("/api/handoffs", { method: "POST", json: { trace_id: data.trace_id || null, question, outcome: data.outcome, note: added?.value.trim() || null } });
      wrap.replaceChildren(el("div", { class: "alert alert-ok", role: "status" },
        el("strong", { text: "Sent. " }), `Your question went to ${h.routed_to} (handoff #${h.id}). Their reply will show beside it in your `,
        el("a", { href: "/history", text: "History" }), "."));
    } catch (e) {
      btn.disabled = false;
      btn.textContent = "Ask a person";
      wrap.append(el("div", { class: "alert alert-error", role: "alert", text: e.message }));
    }
  });
  wrap.append(...(added ? [added] : []), btn, note);
  return wrap;
}

/* ---------- Feedback: did this answer it? (POST /api/feedback) ---------- */
// One verdict per answer and passage; a second click replaces the first, so the buttons
// stay. A comment typed after a click is sent again with the verdicts already given.
const feedbackGiven = new Map(); // chunk id ("" for the answer itself) -> verdict

async function sendFeedback(data, verdict, chunkId, status) {
  const comment = document.getElementById("feedback-comment")?.value.trim() || null;
  try {
    await api("/api/feedback", { method: "POST", json: { trace_id: data.trace_id, verdict, chunk_id: chunkId || null, comment } });
    feedbackGiven.set(chunkId || "", verdict);
    status.textContent = "Thanks — noted.";
    return true;
  } catch (e) {
    status.textContent = e.message;
    return false;
  }
}

// On an answer: "This answered it" / "It did not" and a comment field. With `chunkId` (a
// closest passage): "This answered it" for that passage. Else (a "probably here" card):
// "None of these" and the comment field.
function feedbackControls(data, chunkId) {
  if (!data.trace_id) return null;
  const passage = chunkId ? (data.closest || []).find((r) => r.id === chunkId) : null;
  const choices = chunkId ? [["answered", "This answered it"]]
    : data.tier === "answer" ? [["answered", "This answered it"], ["not_answered", "It did not"]]
    : [["not_answered", "None of these"]];
  const status = el("span", { class: "feedback-status muted small", role: "status" });
  const named = (label) => passage ? `${label}: ${(passage.heading_path || []).join(" › ") || passage.source}` : null;
  const buttons = choices.map(([verdict, label]) =>
    el("button", { type: "button", class: "btn btn-quiet btn-small", "aria-pressed": "false", "data-verdict": verdict, "aria-label": named(label) }, label));
  buttons.forEach((btn) => btn.addEventListener("click", async () => {
    btn.disabled = true;
    if (await sendFeedback(data, btn.dataset.verdict, chunkId, status)) {
      buttons.forEach((b) => b.setAttribute("aria-pressed", String(b === btn)));
    }
    btn.disabled = false;
  }));
  const question = chunkId ? null : data.tier === "answer" ? "Did this answer your question?" : "Not in these passages?";
  const wrap = el("div", { class: "feedback", role: "group", "aria-label": question || "Did this passage answer your question?" },
    question ? el("span", { class: "muted small", text: question }) : null, buttons, status);
  if (chunkId) return wrap;
  feedbackGiven.clear(); // a new card: nothing given on it yet
  const comment = el("input", { id: "feedback-comment", type: "text", maxlength: "1000", autocomplete: "off" });
  comment.addEventListener("change", () => {
    feedbackGiven.forEach((verdict, id) => sendFeedback(data, verdict, id || undefined, status));
  });
  wrap.append(el("label", { class: "feedback-comment small", for: "feedback-comment" }, "Comment (optional)", comment));
  return wrap;
}

let askNow = () => {};
function initAsk() {
  const form = document.getElementById("ask-form");
  if (!form) return;
  const q = document.getElementById("question");
  const status = document.getElementById("ask-status");
  const statusText = document.getElementById("ask-status-text");
  const button = document.getElementById("ask-button");
  askNow = async () => {
    const question = q.value.trim();
    if (!question) { q.focus(); return; }
    button.disabled = true;
    status.hidden = false;
    statusText.textContent = "Searching the documents…";
    const slow = setTimeout(() => { statusText.textContent = "Reading the passages and checking every citation…"; }, 1200);
    try {
      renderAnswer(await api("/api/ask", { method: "POST", json: { question } }), question);
    } catch (e) {
      const box = document.getElementById("result");
      box.hidden = false;
      box.replaceChildren(el("div", { class: "alert alert-error", role: "alert", text: e.message }));
    } finally {
      clearTimeout(slow);
      status.hidden = true;
      button.disabled = false;
    }
  };
  form.addEventListener("submit", (ev) => { ev.preventDefault(); askNow(); });
  // Coming back from a passage: show the answer again instead of an empty page (the
  // question box keeps the focus it takes on load, `autofocus`).
  try {
    const last = JSON.parse(sessionStorage.getItem("docent:last") || "null");
    if (last && last.data) { q.value = last.question || ""; renderAnswer(last.data, last.question, { focus: false }); }
  } catch (_) { /* nothing stored */ }
  q.addEventListener("keydown", (ev) => {
    if (ev.key === "Enter" && !ev.shiftKey) { ev.preventDefault(); askNow(); }
  });
}

/* ---------- Passages ---------- */
function initBack() {
  const back = document.querySelector("[data-back]");
  if (back && !document.referrer) { back.setAttribute("href", "/"); back.textContent = "← Ask another question"; }
  document.getElementById("quote")?.scrollIntoView({ block: "center" });
}

// The sign-in page: the last answer shown in this tab was for whoever signed in before.
function initSignIn() {
  if (!document.querySelector('form[action="/login"]')) return;
  try { sessionStorage.removeItem("docent:last"); } catch (_) { /* private mode */ }
}

document.addEventListener("DOMContentLoaded", () => {
  initSignIn(); initAsk(); initBack();
});
