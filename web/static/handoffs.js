// The handoffs page: the owner's reply to a question handed to them, or "Record as a content
// gap". Loaded after app.js, whose helpers (el, api) it uses.
(() => {
"use strict";

// A reply (with the document that answers it, if chosen) closes the handoff; "Record as a
// content gap" keeps it open. Either way the page reloads to show the server's view.
function initHandoffs() {
  const failed = (form, e) => {
    form.querySelector(".alert-error")?.remove();
    form.append(el("div", { class: "alert alert-error", role: "alert", text: e.message }));
  };
  document.querySelectorAll("form[data-reply]").forEach((form) => {
    form.addEventListener("submit", async (ev) => {
      ev.preventDefault();
      const btn = form.querySelector("button[type=submit]");
      btn.disabled = true;
      btn.textContent = "Sending…";
      try {
        const json = { resolution: form.resolution.value.trim() || null, answer_source: form.answer_source.value || null };
        await api(`/api/handoffs/${form.dataset.reply}/close`, { method: "POST", json });
        location.reload();
      } catch (e) { btn.disabled = false; btn.textContent = "Send reply"; failed(form, e); }
    });
    form.querySelector("button[data-gap]")?.addEventListener("click", async (ev) => {
      const btn = ev.currentTarget;
      btn.disabled = true;
      try {
        await api(`/api/handoffs/${btn.dataset.gap}/gap`, { method: "POST", json: {} });
        location.reload();
      } catch (e) { btn.disabled = false; failed(form, e); }
    });
  });
}

document.addEventListener("DOMContentLoaded", initHandoffs);
})();
