// Ingest jobs, uploads and retiring a document: the pages of editors and operators. Loaded
// after app.js, whose helpers (el, api) it uses; its own names stay inside this block.
(() => {
"use strict";

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

// A failed job that indexed some of its files says so: "failed" alone read as if nothing
// went in (a user pass).
function stateLabel(job) {
  const files = job.files || [];
  const indexed = files.filter((f) => f.state === "indexed" || f.state === "unchanged").length;
  return job.state === "failed" && indexed ? `partly failed · ${indexed} of ${files.length} in` : job.state;
}

function renderJob(job, { actions = true } = {}) {
  const files = job.files || [];
  const head = el("div", { class: "job-head" },
    el("span", { class: `badge badge-job-${job.state}`, text: stateLabel(job) }),
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
      f.error ? el("div", { class: "job-file-error", role: "note", text: f.error }) : null,
      f.state === "failed" && f.retryable === false
        ? el("div", { class: "job-file-hint", text: "A retry can't fix this: correct the file and upload it again." }) : null)));
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

// The documents list, fetched again once a job ends: the page's own server-rendered section
// (escaped by its template) replaces the old one whole, so the list has one renderer.
async function refreshDocuments() {
  const section = document.getElementById("documents-list");
  if (!section) return false;
  try {
    const res = await fetch("/documents", { headers: { Accept: "text/html" }, credentials: "same-origin" });
    if (!res.ok) return false;
    const page = new DOMParser().parseFromString(await res.text(), "text/html");
    const fresh = page.getElementById("documents-list");
    if (!fresh) return false;
    section.replaceWith(document.importNode(fresh, true));
    return true;
  } catch (_) { return false; }
}

function watchJob(jobId, holder, status) {
  const tick = async () => {
    let job;
    try { job = await api(`/api/jobs/${jobId}`); } catch (e) { status.textContent = e.message; return; }
    holder.replaceChildren(renderJob(job, { actions: false }));
    if (["succeeded", "failed", "cancelled"].includes(job.state)) {
      const done = job.state === "succeeded" ? "Done." : `Job ${stateLabel(job)}.`;
      if (await refreshDocuments()) status.textContent = `${done} The list below is up to date.`;
      else status.replaceChildren(`${done} `, el("a", { href: "/documents", text: "Refresh the list" }));
      return;
    }
    setTimeout(tick, 1000);
  };
  tick();
}

/* ---------- Retire ---------- */
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

document.addEventListener("DOMContentLoaded", () => {
  initJobs(); initUpload(); initRetire();
});
})();
