// axe.run in the page, evaluated by tests/web/axe.py: its violations, cut to what a failure
// message shows (axe's full result is ~100 KB). Text over a background gradient (a table
// that scrolls sideways: its edge shadows are gradients) is "incomplete" for axe, which
// cannot tell its background; it is measured here against the background colour under the
// gradient (each see-through layer blended over the next), and reported as a color-contrast
// violation when below the ratio axe requires of it.
async (tags) => {
  const result = await axe.run(document, {
    runOnly: { type: "tag", values: tags },
    resultTypes: ["violations", "incomplete"],
  });
  const brief = (v, nodes) => ({
    id: v.id, impact: v.impact, help: v.help, helpUrl: v.helpUrl,
    nodes: nodes.map((n) => ({
      target: n.target.map(String).join(" "),
      summary: n.summary || n.failureSummary || "",
    })),
  });
  const rgba = (c) => {
    const n = (c.match(/[\d.]+/g) || ["0", "0", "0", "0"]).map(Number);
    return [n[0], n[1], n[2], n.length > 3 ? n[3] : 1];
  };
  const over = ([r, g, b, a], [R, G, B]) =>
    [r * a + R * (1 - a), g * a + G * (1 - a), b * a + B * (1 - a), 1];
  const background = (node) => {
    const layers = [];
    for (let e = node; e; e = e.parentElement) {
      const c = rgba(getComputedStyle(e).backgroundColor);
      if (c[3] > 0) layers.push(c);
      if (c[3] >= 1) break;
    }
    return layers.reverse().reduce((under, layer) => over(layer, under), [255, 255, 255, 1]);
  };
  const luminance = (c) => {
    const [r, g, b] = c.slice(0, 3).map((v) => v / 255)
      .map((v) => (v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4));
    return 0.2126 * r + 0.7152 * g + 0.0722 * b;
  };
  const measured = [];
  for (const v of result.incomplete.filter((v) => v.id === "color-contrast")) {
    const failing = [];
    for (const n of v.nodes) {
      const data = (n.any[0] || {}).data || {};
      if (!["bgGradient", "bgImage"].includes(data.messageKey)) continue;
      const node = document.querySelector(n.target.map(String).join(" "));
      if (!node) continue;
      const bg = background(node);
      const fg = over(rgba(getComputedStyle(node).color), bg);
      const [hi, lo] = [luminance(fg), luminance(bg)].sort((a, b) => b - a);
      const ratio = (hi + 0.05) / (lo + 0.05);
      const needed = parseFloat(data.expectedContrastRatio || "4.5");
      if (ratio >= needed) continue;
      const summary = `contrast ${ratio.toFixed(2)}:1 on the colour under its background`
        + ` gradient, needs ${needed}:1`;
      failing.push({ target: n.target, summary });
    }
    if (failing.length) measured.push(brief(v, failing));
  }
  return result.violations.map((v) => brief(v, v.nodes)).concat(measured);
}
