// The admin's pages: add a user, change one, disable or enable them, issue and revoke API
// tokens. Loaded after app.js, whose helpers (el, api) it uses. A new token's secret lives
// only in this page's DOM: it is never stored, and a reload does not bring it back.
(() => {
"use strict";

const userPath = (name) => `/users/${encodeURIComponent(name)}`;
const apiUser = (name) => `/api/admin/users/${encodeURIComponent(name)}`;
const commaList = (text) => String(text || "").split(",").map((s) => s.trim()).filter(Boolean);
const checkedRoles = (form) => [...form.querySelectorAll('input[name="roles"]:checked')].map((i) => i.value);

function say(node, text, error = false) {
  if (!node) return;
  node.replaceChildren(error ? el("span", { class: "alert alert-error", role: "alert", text }) : text);
}

async function submitting(form, status, work) {
  const button = form.querySelector('button[type="submit"]');
  button.disabled = true;
  say(status, "Saving…");
  try { await work(); } catch (e) { say(status, e.message, true); button.disabled = false; }
}

function initAddUser() {
  const form = document.getElementById("add-user-form");
  if (!form) return;
  const status = form.querySelector("[data-status]");
  form.addEventListener("submit", (ev) => {
    ev.preventDefault();
    submitting(form, status, async () => {
      const made = await api("/api/admin/users", { method: "POST", json: {
        username: form.username.value.trim(),
        display_name: form.display_name.value.trim() || null,
        password: form.password.value,
        clearance: form.clearance.value,
        groups: commaList(form.groups.value),
        roles: checkedRoles(form),
      } });
      location.assign(`${userPath(made.username)}?done=added`);
    });
  });
}

function initUserForm() {
  const form = document.getElementById("user-form");
  if (!form) return;
  const status = form.querySelector("[data-status]");
  form.addEventListener("submit", (ev) => {
    ev.preventDefault();
    submitting(form, status, async () => {
      await api(apiUser(form.dataset.user), { method: "PATCH", json: {
        display_name: form.display_name.value,
        clearance: form.clearance.value,
        groups: commaList(form.groups.value),
        roles: checkedRoles(form),
      } });
      location.replace(`${userPath(form.dataset.user)}?done=saved`);
    });
  });
}

function initToggle() {
  const button = document.getElementById("toggle-disabled");
  if (!button) return;
  button.addEventListener("click", async () => {
    const disable = button.dataset.disable === "true";
    button.disabled = true;
    try {
      await api(apiUser(button.dataset.user), { method: "PATCH", json: { disabled: disable } });
      location.replace(`${userPath(button.dataset.user)}?done=${disable ? "disabled" : "enabled"}`);
    } catch (e) { button.disabled = false; say(document.getElementById("toggle-status"), e.message, true); }
  });
}

function initTokens() {
  const form = document.getElementById("token-form");
  const status = document.getElementById("token-status");
  form?.addEventListener("submit", (ev) => {
    ev.preventDefault();
    submitting(form, status, async () => {
      const made = await api(`${apiUser(form.dataset.user)}/tokens`, { method: "POST", json: { label: form.label.value } });
      document.getElementById("new-token-secret").textContent = made.secret;
      const panel = document.getElementById("new-token");
      panel.hidden = false;
      panel.scrollIntoView({ block: "center" });
      form.reset();
      form.querySelector('button[type="submit"]').disabled = false;
      say(status, `Issued token ${made.token.prefix} (${made.token.label}). It is listed here after a reload, without its secret.`);
    });
  });
  document.getElementById("copy-token")?.addEventListener("click", async () => {
    try {
      await navigator.clipboard.writeText(document.getElementById("new-token-secret").textContent);
      say(status, "Copied.");
    } catch (_) { say(status, "Select the token and copy it yourself."); }
  });
  document.querySelectorAll("[data-revoke]").forEach((button) => {
    button.addEventListener("click", async () => {
      button.disabled = true;
      try {
        await api(`/api/admin/tokens/${encodeURIComponent(button.dataset.revoke)}/revoke`, { method: "POST" });
        location.replace(`${location.pathname}?done=revoked`);
      } catch (e) { button.disabled = false; say(status, e.message, true); }
    });
  });
}

document.addEventListener("DOMContentLoaded", () => {
  initAddUser(); initUserForm(); initToggle(); initTokens();
});
})();
