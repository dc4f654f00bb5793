import type { OrderDocument } from "./document.js";

export type Paper = "A4" | "LETTER";

/**
 * The built-in PDF fonts (Helvetica) cover Windows-1252 only: typographic characters Intl uses
 * are mapped to their plain forms, anything else outside it shows as "?" (an embedded Unicode
 * font would lift this).
 */
const WIN_ANSI_EXTRA = new Set([..."€‚ƒ„…†‡ˆ‰Š‹ŒŽ‘’“”•–—˜™š›œžŸ"]);
function pdfText(text: string): string {
  return text
    .replace(/\u2212/g, "-")
    .replace(/[\u00a0\u202f\u2009\u2007]/g, " ")
    .replace(/./gu, (c) => (c.charCodeAt(0) <= 0xff || WIN_ANSI_EXTRA.has(c) ? c : "?"));
}

/** The document as a PDF (A4 or US Letter), drawn with pdfkit (pure JavaScript). */
export async function renderPdf(doc: OrderDocument, paper: Paper = "A4"): Promise<Buffer> {
  // pdfkit and its font machinery load on the first PDF, not at every start of the server.
  const { default: PDFDocument } = await import("pdfkit");
  const pdf = new PDFDocument({
    size: paper,
    margin: 50,
    info: {
      Title: pdfText(`${doc.title} ${doc.number}`),
      Author: pdfText(doc.seller.name),
      Subject: pdfText(`${doc.title} ${doc.number} — ${doc.buyer.name}`),
      Creator: "Kassa",
    },
  });
  const chunks: Buffer[] = [];
  pdf.on("data", (c: Buffer) => chunks.push(c));
  const done = new Promise<Buffer>((resolve, reject) => {
    pdf.on("end", () => resolve(Buffer.concat(chunks)));
    pdf.on("error", reject);
  });

  const left = pdf.page.margins.left;
  const width = pdf.page.width - left - pdf.page.margins.right;
  const right = left + width;
  const grey = "#6b6b6b";

  // Title and number on the left, the seller on the right.
  const top = pdf.y;
  pdf.font("Helvetica-Bold").fontSize(22).fillColor("#1a1a1a").text(pdfText(doc.title), left, top);
  pdf.font("Helvetica").fontSize(11).text(pdfText(doc.number));
  const afterTitle = pdf.y;
  pdf
    .font("Helvetica-Bold")
    .fontSize(12)
    .text(pdfText(doc.seller.name), left, top, { width, align: "right" });
  pdf.font("Helvetica").fontSize(10);
  for (const line of doc.seller.lines) pdf.text(pdfText(line), { width, align: "right" });
  pdf.y = Math.max(afterTitle, pdf.y) + 24;

  // Billed to, and the document's facts.
  const metaTop = pdf.y;
  const half = width / 2;
  pdf
    .fontSize(8)
    .fillColor(grey)
    .text("BILLED TO", left, metaTop, { width: half - 12 });
  pdf
    .fontSize(10)
    .fillColor("#1a1a1a")
    .font("Helvetica-Bold")
    .text(pdfText(doc.buyer.name), { width: half - 12 });
  pdf.font("Helvetica");
  for (const line of doc.buyer.lines) pdf.text(pdfText(line), { width: half - 12 });
  const afterBuyer = pdf.y;
  const facts: [string, string][] = [
    [doc.kind === "invoice" ? "Invoice number" : "Receipt for invoice", doc.number],
    ["Date of issue", doc.issuedOn],
    ["Currency", doc.currency],
    ["Status", doc.status.label],
  ];
  let y = metaTop;
  for (const [label, value] of facts) {
    pdf.fillColor(grey).text(pdfText(label), left + half, y, { width: 110 });
    pdf.fillColor(label === "Status" ? (doc.status.paid ? "#1b7a3a" : "#a15c00") : "#1a1a1a");
    pdf.text(pdfText(value), left + half + 115, y, { width: half - 115 });
    y = pdf.y + 2;
  }
  pdf.fillColor("#1a1a1a");
  pdf.y = Math.max(afterBuyer, y) + 24;

  // Items.
  const rule = (at: number, color = "#d4d4d8") =>
    pdf.moveTo(left, at).lineTo(right, at).lineWidth(0.7).strokeColor(color).stroke();
  pdf.fontSize(8).fillColor(grey);
  const headY = pdf.y;
  pdf.text("DESCRIPTION", left, headY, { width: width - 120 });
  pdf.text("AMOUNT", right - 120, headY, { width: 120, align: "right" });
  rule(pdf.y + 4);
  pdf.y += 10;
  pdf.fontSize(10).fillColor("#1a1a1a");
  for (const item of doc.items) {
    const rowY = pdf.y;
    pdf.text(pdfText(item.label), left, rowY, { width: width - 130 });
    const afterLabel = pdf.y;
    pdf.text(pdfText(item.amount), right - 120, rowY, { width: 120, align: "right" });
    pdf.y = Math.max(afterLabel, pdf.y) + 4;
    rule(pdf.y, "#ececef");
    pdf.y += 6;
  }

  // Totals, right-aligned.
  pdf.y += 6;
  const labelX = left + width * 0.4;
  for (const t of doc.totals) {
    const rowY = pdf.y;
    if (t.strong) {
      pdf
        .moveTo(labelX, rowY - 3)
        .lineTo(right, rowY - 3)
        .lineWidth(0.7)
        .strokeColor("#d4d4d8")
        .stroke();
    }
    pdf.font(t.strong ? "Helvetica-Bold" : "Helvetica");
    pdf.text(pdfText(t.label), labelX, rowY, { width: width * 0.6 - 130 });
    pdf.text(pdfText(t.value), right - 130, rowY, { width: 130, align: "right" });
    pdf.y = Math.max(pdf.y, rowY + 14) + 3;
  }

  pdf
    .font("Helvetica")
    .fontSize(9)
    .fillColor(grey)
    .text(pdfText(doc.note), left, pdf.y + 24, { width });
  pdf.end();
  return done;
}
