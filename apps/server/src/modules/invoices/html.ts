import type { OrderDocument } from "./document.js";

const ESCAPES: Record<string, string> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&#39;",
};
const esc = (text: string) => text.replace(/[&<>"']/g, (c) => ESCAPES[c]!);

/**
 * Print CSS: no fixed page size, so the printer's paper (A4 or Letter) is used; the content is
 * narrower than both (A4 is 210 mm wide, Letter 216 mm; 15 mm margins leave 180 mm).
 */
const STYLE = `
  :root { color-scheme: light; }
  * { box-sizing: border-box; }
  body { margin: 0; font: 14px/1.45 -apple-system, "Segoe UI", Roboto, Helvetica, Arial, sans-serif; color: #1a1a1a; background: #f4f4f5; }
  main { max-width: 180mm; margin: 24px auto; background: #fff; padding: 32px 36px; border-radius: 8px; box-shadow: 0 1px 3px rgba(0,0,0,.08); }
  header { display: flex; justify-content: space-between; align-items: flex-start; gap: 24px; }
  h1 { font-size: 26px; margin: 0 0 4px; letter-spacing: .02em; }
  .seller { text-align: right; }
  .seller strong { font-size: 16px; }
  .meta { margin: 24px 0; display: grid; grid-template-columns: 1fr 1fr; gap: 24px; }
  .label { font-size: 11px; text-transform: uppercase; letter-spacing: .06em; color: #6b6b6b; margin-bottom: 4px; }
  dl { margin: 0; display: grid; grid-template-columns: auto 1fr; gap: 2px 12px; }
  dt { color: #6b6b6b; } dd { margin: 0; }
  .status { display: inline-block; padding: 2px 8px; border-radius: 999px; font-size: 12px; font-weight: 600; border: 1px solid currentColor; }
  .status.paid { color: #1b7a3a; } .status.unpaid { color: #a15c00; }
  table { width: 100%; border-collapse: collapse; margin-top: 8px; }
  th, td { padding: 8px 0; text-align: left; vertical-align: top; }
  th { font-size: 11px; text-transform: uppercase; letter-spacing: .06em; color: #6b6b6b; border-bottom: 1px solid #d4d4d8; }
  td { border-bottom: 1px solid #ececef; }
  .num { text-align: right; white-space: nowrap; font-variant-numeric: tabular-nums; }
  .totals { margin-left: auto; width: 60%; margin-top: 12px; }
  .totals td { border: 0; padding: 4px 0; }
  .totals tr.strong td { font-weight: 700; border-top: 1px solid #d4d4d8; padding-top: 8px; }
  footer { margin-top: 32px; color: #6b6b6b; font-size: 12px; display: flex; justify-content: space-between; gap: 12px; }
  a { color: inherit; }
  @page { margin: 15mm; }
  @media print {
    body { background: #fff; font-size: 11pt; }
    main { margin: 0; padding: 0; max-width: none; box-shadow: none; border-radius: 0; }
    .no-print { display: none; }
    tr, .totals { break-inside: avoid; }
    .status { -webkit-print-color-adjust: exact; print-color-adjust: exact; }
  }
`;

const lines = (items: string[]) => items.map((l) => `<div>${esc(l)}</div>`).join("");

/** The document as a standalone HTML page (inline CSS, no script, no outside resource). */
export function renderHtml(doc: OrderDocument, opts: { pdfUrl?: string } = {}): string {
  const rows = doc.items
    .map((i) => `<tr><td>${esc(i.label)}</td><td class="num">${esc(i.amount)}</td></tr>`)
    .join("");
  const totals = doc.totals
    .map(
      (t) =>
        `<tr${t.strong ? ' class="strong"' : ""}><td>${esc(t.label)}</td><td class="num">${esc(t.value)}</td></tr>`,
    )
    .join("");
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>${esc(`${doc.title} ${doc.number} — ${doc.seller.name}`)}</title>
<style>${STYLE}</style>
</head>
<body>
<main>
  <header>
    <div>
      <h1>${esc(doc.title)}</h1>
      <div>${esc(doc.number)}</div>
    </div>
    <div class="seller"><strong>${esc(doc.seller.name)}</strong>${lines(doc.seller.lines)}</div>
  </header>
  <section class="meta">
    <div>
      <div class="label">Billed to</div>
      <div><strong>${esc(doc.buyer.name)}</strong></div>
      ${lines(doc.buyer.lines)}
    </div>
    <div>
      <dl>
        <dt>${doc.kind === "invoice" ? "Invoice number" : "Receipt for invoice"}</dt><dd>${esc(doc.number)}</dd>
        <dt>Date of issue</dt><dd>${esc(doc.issuedOn)}</dd>
        <dt>Currency</dt><dd>${esc(doc.currency)}</dd>
        <dt>Status</dt><dd><span class="status ${doc.status.paid ? "paid" : "unpaid"}">${esc(doc.status.label)}</span></dd>
      </dl>
    </div>
  </section>
  <table>
    <thead><tr><th>Description</th><th class="num">Amount</th></tr></thead>
    <tbody>${rows}</tbody>
  </table>
  <table class="totals"><tbody>${totals}</tbody></table>
  <footer>
    <span>${esc(doc.note)}</span>
    ${opts.pdfUrl ? `<a class="no-print" href="${esc(opts.pdfUrl)}">Download PDF</a>` : ""}
  </footer>
</main>
</body>
</html>
`;
}
