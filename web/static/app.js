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
// Split answer text into prose and tables: a run of lines starting with "|" is a table;
// text after its last cell (the citation marker) stays with it.
function answerSegments(text) {
  const segments = [];
  let prose = [];
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    if (!lines[i].trim().startsWith("|")) { prose.push(lines[i]); continue; }
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
    segments.push({ table: { header: cellsOf(body[0]), rows: body.slice(1).map(cellsOf) }, after });
  }
  if (prose.length) segments.push({ text: prose.join("\n") });
  return segments;
}

/* ---------- Ask ---------- */
function renderAnswer(data, question) {
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
        answer.append(tableEl(seg.table.header, seg.table.rows, "answer-table"));
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
            c.table ? tableEl(c.table.header, c.table.rows, "citation-table")
              : c.quote ? el("q", { class: "citation-quote", text: c.quote }) : null)))));
    const superseded = cites.some((c) => c.status !== "current");
    box.append(el("article", { class: "card answer" },
      el("p", { class: "eyebrow", text: "Answer" }), answer,
      superseded ? el("div", { class: "alert alert-warn", role: "note" }, "Some sources are superseded or not yet in force — check their status before relying on them.") : null,
      el("h2", { class: "section-title small-title", text: "Sources" }), list,
      handoffOffer(data, question, true)));
  } else {
    const messages = {
      insufficient_evidence: nonanswerTitle(data),
      ambiguous: ["Your question could mean more than one thing.", data.clarifying_question || "Could you say which you mean?"],
      declined: ["Docent can't answer this one.", reasonText(data.reason_code)],
    };
    const [title, detail] = messages[data.outcome] || ["No answer from the documents.", "The answer could not be checked against the documents."];
    const card = el("article", { class: "card nonanswer" },
      el("p", { class: "eyebrow", text: "No answer" }),
      el("h2", { class: "nonanswer-title", text: title }),
      el("p", { text: detail }));
    // Passages matched but none stated the answer: they are the asker's to read (retrieval
    // kept only those), so point at them instead of saying nothing.
    const closest = data.outcome === "insufficient_evidence" ? (data.retrieved || []).slice(0, 3) : [];
    if (closest.length) {
      card.append(el("p", { class: "muted small", text: "Closest passages you can read:" }),
        el("ul", { class: "closest" }, closest.map((r) =>
          el("li", {},
            el("a", { href: passageHref(r.id) }, (r.heading_path || []).join(" › ") || r.source),
            " ", el("code", { text: r.source }),
            r.status && r.status !== "current" ? [" ", badge(r.status)] : null))));
    }
    if (data.outcome === "ambiguous" && (data.readings || []).length) {
      card.append(el("p", { class: "muted small", text: "Did you mean:" }),
        el("div", { class: "readings" }, data.readings.map((r) =>
          el("button", { type: "button", class: "btn btn-quiet", onclick: () => { document.getElementById("question").value = r; askNow(); } }, r))));
    }
    card.append(handoffOffer(data, question, false));
    box.append(card);
  }
  box.focus();
}

// What a non-answer says first, by its reason (the CLI says the same: generate/cli.py).
function nonanswerTitle(data) {
  switch (data.reason_code) {
    case "below_threshold":
      return ["The documents don't cover this.", data.missing || "None of the passages you can read answer this question."];
    case "model_abstained":
      return ["No direct answer in the documents.", data.missing];
    case "unclear_evidence":
      return ["The documents don't answer this clearly.", data.missing];
    default:
      return ["The drafted answer could not be checked against the documents.", data.missing];
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
  btn.addEventListener("click", async () => {
    btn.disabled = true;
    btn.textContent = "Sending…";
    try {
      const h = await api("/api/handoffs", { method: "POST", json: { trace_id: data.trace_id || null, question, outcome: data.outcome } });
      wrap.replaceChildren(el("div", { class: "alert alert-ok", role: "status" },
        el("strong", { text: "Sent. " }), `Your question went to ${h.routed_to} (handoff #${h.id}). You'll hear back from them.`));
    } catch (e) {
      btn.disabled = false;
      btn.textContent = "Ask a person";
      wrap.append(el("div", { class: "alert alert-error", role: "alert", text: e.message }));
    }
  });
  wrap.append(btn, note);
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
  // Coming back from a passage: show the answer again instead of an empty page.
  try {
    const last = JSON.parse(sessionStorage.getItem("docent:last") || "null");
    if (last && last.data) { q.value = last.question || ""; renderAnswer(last.data, last.question); }
  } catch (_) { /* nothing stored */ }
  q.addEventListener("keydown", (ev) => {
    if (ev.key === "Enter" && !ev.shiftKey) { ev.preventDefault(); askNow(); }
  });
}

/* ---------- Jobs ---------- */
const pct = (x) => `${Math.round((x || 0) * 100)}%`;
const plural = (n, word) => `${n} ${word}${n === 1 ? "" : "s"}`;
const expanded = new Set();  // finished jobs whose file list a person opened
function progressBar(value, state, label) {
  return el("div", { class: `progress state-${state}`, role: "progressbar", "aria-valuemin": "0", "aria-valuemax": "100", "aria-valuenow": String(Math.round((value || 0) * 100)), "aria-label": label },
    el("div", { class: "progress-fill", style: `width:${pct(value)}` }));
}

// "· 12.5 chunks/s · about 3 min left" while a job runs (rate and ETA from the server).
function pace(job) {
  if (job.chunks_per_s == null) return "";
  const rate = ` · ${job.chunks_per_s} chunks/s`;
  if (job.state !== "running" || job.eta_s == null) return rate;
  const left = job.eta_s < 90 ? `${job.eta_s} s` : `${Math.round(job.eta_s / 60)} min`;
  return `${rate} · about ${left} left`;
}

function renderJob(job, { actions = true } = {}) {
  const files = job.files || [];
  const head = el("div", { class: "job-head" },
    el("span", { class: `badge badge-job-${job.state}`, text: job.state }),
    el("strong", { class: "job-title", text: `${job.kind === "reindex" ? "Reindex" : "Ingest"} · ${job.files_total} file${job.files_total === 1 ? "" : "s"}` }),
    el("span", { class: "muted small", text: `${job.created_by || "system"} · ${String(job.created_at || "").replace("T", " ").slice(0, 19)}${job.seconds != null ? ` · ${job.seconds}s` : ""}${pace(job)}` }));
  const acts = el("div", { class: "job-actions" });
  if (actions && job.can_retry) acts.append(el("button", { class: "btn btn-small", "data-retry": job.job_id, text: "Retry failed" }));
  if (actions && job.can_cancel) acts.append(el("button", { class: "btn btn-small btn-quiet", "data-cancel": job.job_id, text: "Cancel" }));
  head.append(acts);
  const table = el("ul", { class: "job-files" }, files.map((f) =>
    el("li", { class: `job-file state-${f.state}` },
      el("div", { class: "job-file-row" },
        el("span", { class: "job-file-name" }, f.hidden ? el("em", { text: f.source }) : el("code", { text: f.source })),
        el("span", { class: "job-file-state", text: `${f.state}${f.chunks ? ` · ${plural(f.chunks, "chunk")}` : ""}${f.attempts > 1 ? ` · attempt ${f.attempts}` : ""}${f.seconds != null ? ` · ${Number(f.seconds).toFixed(1)}s` : ""}` })),
      progressBar(f.progress, f.state, `${f.source}: ${pct(f.progress)}`),
      f.error ? el("div", { class: "job-file-error", role: "note", text: f.error }) : null)));
  // A finished job without failures folds its file list away (a reindex lists every file).
  const fold = job.state === "succeeded" && files.length > 3;
  let body = table;
  if (fold) {
    body = el("details", { class: "job-details", open: expanded.has(job.job_id) },
      el("summary", { text: `${plural(files.length, "file")} · ${plural(job.chunks, "chunk")}` }), table);
    body.addEventListener("toggle", () => { body.open ? expanded.add(job.job_id) : expanded.delete(job.job_id); });
  }
  return el("article", { class: `card job state-${job.state}`, "data-job": job.job_id },
    head, progressBar(job.progress, job.state, `Job progress ${pct(job.progress)}`),
    job.error ? el("p", { class: "job-error", text: job.error }) : null, body);
}

function initJobs() {
  const root = document.getElementById("jobs");
  if (!root) return;
  const status = document.getElementById("jobs-status");
  const draw = (data) => {
    const jobs = data.jobs || [];
    root.replaceChildren(...(jobs.length ? jobs.map((j) => renderJob(j)) : [el("div", { class: "card empty-state" }, el("p", { class: "muted", text: "No ingest jobs yet." }))]));
  };
  draw(JSON.parse(document.getElementById("jobs-initial").textContent));
  const poll = async () => {
    try { draw(await api("/api/jobs")); } catch (e) { status.textContent = e.message; }
  };
  setInterval(poll, 1000);
  root.addEventListener("click", async (ev) => {
    const btn = ev.target.closest("button[data-retry], button[data-cancel]");
    if (!btn) return;
    btn.disabled = true;
    const id = btn.dataset.retry || btn.dataset.cancel;
    try {
      await api(`/api/jobs/${id}/${btn.dataset.retry ? "retry" : "cancel"}`, { method: "POST" });
      status.textContent = btn.dataset.retry ? "Retrying the failed files…" : "Job cancelled.";
      poll();
    } catch (e) { status.textContent = e.message; btn.disabled = false; }
  });
  document.getElementById("reindex-button")?.addEventListener("click", async (ev) => {
    if (!confirm("Re-read and re-embed every document? Answers keep working meanwhile.")) return;
    ev.target.disabled = true;
    try { await api("/api/reindex", { method: "POST" }); status.textContent = "Reindex started."; poll(); }
    catch (e) { status.textContent = e.message; }
    finally { ev.target.disabled = false; }
  });
}

/* ---------- Documents ---------- */
function initUpload() {
  const form = document.getElementById("upload-form");
  if (!form) return;
  const input = document.getElementById("files");
  const names = document.getElementById("file-names");
  const status = document.getElementById("upload-status");
  const result = document.getElementById("upload-result");
  const button = document.getElementById("upload-button");
  input.addEventListener("change", () => { names.textContent = [...input.files].map((f) => f.name).join(", "); });
  form.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    button.disabled = true;
    status.replaceChildren(el("span", { class: "spinner" }), " Uploading…");
    result.replaceChildren();
    try {
      const data = await api("/api/documents", { method: "POST", form: new FormData(form) });
      status.textContent = `Accepted ${data.accepted.length} file${data.accepted.length === 1 ? "" : "s"}; ingesting…`;
      result.append(acceptedList(data.accepted));
      if (data.rejected.length) result.append(rejectedList(data.rejected));
      const holder = el("div", { class: "upload-job" });
      result.append(holder);
      watchJob(data.job_id, holder, status);
      form.reset();
      names.textContent = "";
    } catch (e) {
      status.textContent = "";
      result.append(el("div", { class: "alert alert-error", role: "alert", text: e.message }));
      if (Array.isArray(e.details)) result.append(rejectedList(e.details));
    } finally { button.disabled = false; }
  });
}

function acceptedList(accepted) {
  // The level each file will get, and whether it is the document's own, the form's or the default.
  return el("ul", { class: "accepted" }, accepted.map((a) =>
    el("li", {}, el("strong", { text: a.filename }), ": ",
      el("span", { class: "badge badge-level", text: a.access_level }),
      ` (${a.level_from === "form" ? "from the form" : a.level_from === "document" ? "the document's own" : "the default"})`)));
}

function rejectedList(rejected) {
  return el("ul", { class: "rejected" }, rejected.map((r) =>
    el("li", {}, el("strong", { text: r.filename }), ": ", r.error)));
}

function watchJob(jobId, holder, status) {
  const tick = async () => {
    let job;
    try { job = await api(`/api/jobs/${jobId}`); } catch (e) { status.textContent = e.message; return; }
    holder.replaceChildren(renderJob(job, { actions: false }));
    if (["succeeded", "failed", "cancelled"].includes(job.state)) {
      status.replaceChildren(job.state === "succeeded" ? "Done. " : `Job ${job.state}. `,
        el("a", { href: "/documents", text: "Refresh the list" }));
      return;
    }
    setTimeout(tick, 1000);
  };
  tick();
}

/* ---------- Handoffs, documents ---------- */
function initHandoffs() {
  document.querySelectorAll("form[data-close]").forEach((form) => {
    form.addEventListener("submit", async (ev) => {
      ev.preventDefault();
      const btn = form.querySelector("button");
      btn.disabled = true;
      try {
        await api(`/api/handoffs/${form.dataset.close}/close`, { method: "POST", json: { resolution: form.resolution.value || null } });
        location.reload();
      } catch (e) { btn.disabled = false; form.append(el("div", { class: "alert alert-error", role: "alert", text: e.message })); }
    });
  });
}

function initRetire() {
  const btn = document.getElementById("retire-button");
  if (!btn) return;
  btn.addEventListener("click", async () => {
    if (!confirm(`Retire ${btn.dataset.source}? Its chunks leave the index and it stops appearing in answers.`)) return;
    btn.disabled = true;
    try { await api(`/api/documents/${btn.dataset.doc}/retire`, { method: "POST" }); location.href = "/documents"; }
    catch (e) { btn.disabled = false; alert(e.message); }
  });
}

function initBack() {
  const back = document.querySelector("[data-back]");
  if (back && !document.referrer) { back.setAttribute("href", "/"); back.textContent = "← Ask another question"; }
  document.getElementById("quote")?.scrollIntoView({ block: "center" });
}

document.addEventListener("DOMContentLoaded", () => {
  initAsk(); initJobs(); initUpload(); initHandoffs(); initRetire(); initBack();
});
