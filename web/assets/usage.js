// The usage view: tokens by kind, cache-read share and spend per day, as an
// inline SVG chart and a table.
import { api } from "./api.js";
import { $, h, on, clear, fmtNumber, fmtMoney } from "./dom.js";
import { errorBox } from "./search.js";

const KINDS = [
  ["input_tokens", "Input", "k-input"],
  ["cache_read_tokens", "Cache read", "k-read"],
  ["cache_write_tokens", "Cache write", "k-write"],
  ["output_tokens", "Output", "k-output"],
];

export function initUsage() {
  on($("#usage-days"), "change", showUsage);
}

export async function showUsage() {
  const box = clear($("#usage"));
  box.append(h("p", { class: "muted" }, "Loading usage…"));
  let u;
  try {
    u = await api.usage($("#usage-days").value);
  } catch (e) {
    clear(box).append(e.status === 404
      ? h("p", { class: "empty" }, "This server does not report usage over time.")
      : errorBox(e));
    return;
  }
  const days = u.days ?? [];
  const t = u.total ?? sum(days);
  const inputAll = (t.input_tokens ?? 0) + (t.cache_read_tokens ?? 0) + (t.cache_write_tokens ?? 0);
  const share = inputAll ? (t.cache_read_tokens ?? 0) / inputAll : 0;
  const tokens = inputAll + (t.output_tokens ?? 0);
  clear(box).append(
    h("div", { class: "tiles" },
      tile("Tokens", fmtNumber(tokens), `${fmtNumber(t.calls ?? 0)} calls`),
      tile("Cache-read share", (share * 100).toFixed(1) + "%", "of input tokens read from the provider's prompt cache"),
      tile("Spend", fmtMoney(t.cost_usd), "from the configured price table")),
    days.length ? chart(days, box.clientWidth - 26) : h("p", { class: "empty" }, "No provider calls in this period."),
    days.length ? table(days) : null);
}

function sum(days) {
  const t = { calls: 0, cost_usd: 0 };
  for (const d of days) {
    t.calls += d.calls ?? 0;
    t.cost_usd += d.cost_usd ?? 0;
    for (const [k] of KINDS) t[k] = (t[k] ?? 0) + (d[k] ?? 0);
  }
  return t;
}

function tile(label, value, note) {
  return h("div", { class: "tile" }, h("p", { class: "tile-label" }, label), h("p", { class: "tile-value" }, value), h("p", { class: "muted small" }, note));
}

// scale picks a round tick step for values up to v and the axis maximum, a
// whole number of steps (about four).
function scale(v) {
  if (v <= 0) return { step: 1, max: 4 };
  const raw = v / 4;
  const p = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * p).find((st) => st >= raw);
  return { step, max: step * Math.ceil(v / step) };
}

function compact(n) {
  return new Intl.NumberFormat(undefined, { notation: "compact", maximumFractionDigits: 1 }).format(n);
}

// chart draws stacked token bars per day and the spend as a line on its
// own axis.
function chart(days, width) {
  // The drawing is as wide as its box, so its text keeps its size on a phone.
  const W = Math.round(Math.max(300, Math.min(1100, width || 720)));
  const H = W < 500 ? 220 : 280, L = 48, R = 56, T = 16, B = 36;
  const iw = W - L - R, ih = H - T - B;
  const totals = days.map((d) => KINDS.reduce((s, [k]) => s + (d[k] ?? 0), 0));
  const ys = scale(Math.max(...totals));
  const ss = scale(Math.max(...days.map((d) => d.cost_usd ?? 0)));
  // Both axes share the grid lines: as many steps as the taller one needs.
  const ticks = Math.max(Math.round(ys.max / ys.step), Math.round(ss.max / ss.step));
  const ymax = ys.step * ticks, smax = ss.step * ticks;
  const step = iw / days.length;
  const bw = Math.max(2, Math.min(28, step * 0.7));
  const svg = h("svg:svg", { viewBox: `0 0 ${W} ${H}`, class: "chart", role: "img", "aria-labelledby": "usage-chart-title" },
    h("svg:title", { id: "usage-chart-title" }, `Tokens by kind and spend per day, ${days[0].date} to ${days[days.length - 1].date}`));
  for (let i = 0; i <= ticks; i++) {
    const y = T + ih - (ih * i) / ticks;
    svg.append(h("svg:line", { x1: L, x2: L + iw, y1: y, y2: y, class: "grid" }),
      h("svg:text", { x: L - 6, y: y + 4, class: "axis", "text-anchor": "end" }, compact(ys.step * i)),
      h("svg:text", { x: L + iw + 6, y: y + 4, class: "axis spend-axis", "text-anchor": "start" }, fmtMoney(ss.step * i)));
  }
  const labelEvery = Math.ceil(days.length / Math.max(3, Math.floor(iw / 70)));
  const points = [];
  days.forEach((d, i) => {
    const cx = L + step * i + step / 2;
    let y = T + ih;
    const g = h("svg:g", { class: "bar" }, h("svg:title", {},
      `${d.date}: ${KINDS.map(([k, label]) => `${label} ${fmtNumber(d[k] ?? 0)}`).join(", ")}; spend ${fmtMoney(d.cost_usd)}`));
    for (const [k, , cls] of KINDS) {
      const v = d[k] ?? 0;
      if (!v) continue;
      const bh = (ih * v) / ymax;
      y -= bh;
      g.append(h("svg:rect", { x: cx - bw / 2, y, width: bw, height: Math.max(bh, 0.5), class: cls }));
    }
    svg.append(g);
    if (i % labelEvery === 0) {
      svg.append(h("svg:text", { x: cx, y: H - B + 16, class: "axis", "text-anchor": "middle" }, d.date.slice(5)));
    }
    points.push([cx, T + ih - (ih * (d.cost_usd ?? 0)) / smax]);
  });
  svg.append(h("svg:polyline", { points: points.map((p) => p.map((v) => v.toFixed(1)).join(",")).join(" "), class: "spend" }));
  for (const [x, y] of points) svg.append(h("svg:circle", { cx: x.toFixed(1), cy: y.toFixed(1), r: 2.5, class: "spend-dot" }));
  const legend = h("ul", { class: "legend" },
    KINDS.map(([, label, cls]) => h("li", {}, h("span", { class: `swatch ${cls}`, "aria-hidden": "true" }), label)),
    h("li", {}, h("span", { class: "swatch spend-swatch", "aria-hidden": "true" }), "Spend (right axis)"));
  return h("figure", { class: "chart-box" }, svg, h("figcaption", {}, legend));
}

function table(days) {
  return h("details", { class: "card" }, h("summary", {}, "Per day"),
    h("div", { class: "table-wrap" }, h("table", { class: "usage" },
      h("thead", {}, h("tr", {}, h("th", { scope: "col" }, "Day"), h("th", { scope: "col", class: "num" }, "Calls"),
        KINDS.map(([, label]) => h("th", { scope: "col", class: "num" }, label)),
        h("th", { scope: "col", class: "num" }, "Cache-read share"), h("th", { scope: "col", class: "num" }, "Spend"))),
      h("tbody", {}, days.map((d) => {
        const inAll = (d.input_tokens ?? 0) + (d.cache_read_tokens ?? 0) + (d.cache_write_tokens ?? 0);
        return h("tr", {}, h("th", { scope: "row" }, d.date), h("td", { class: "num" }, fmtNumber(d.calls)),
          KINDS.map(([k]) => h("td", { class: "num" }, fmtNumber(d[k] ?? 0))),
          h("td", { class: "num" }, inAll ? ((100 * (d.cache_read_tokens ?? 0)) / inAll).toFixed(1) + "%" : "—"),
          h("td", { class: "num" }, fmtMoney(d.cost_usd)));
      })))));
}
