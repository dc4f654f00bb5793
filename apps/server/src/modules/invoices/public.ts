import type { HttpBindings } from "@hono/node-server";
import type { Context, Hono } from "hono";
import type { Kysely } from "kysely";
import type { KassaDatabase } from "../../db/schema.js";
import { isUuid } from "../../kit/api/schemas.js";
import type { Clock } from "../../kit/clock.js";
import type { Logger } from "../../kit/logger.js";
import { findOrderAnyOrganization } from "../orders/index.js";
import { buildDocument, type DocumentKind } from "./document.js";
import { renderHtml } from "./html.js";
import { type Paper, renderPdf } from "./pdf.js";
import type { InvoicesEnv } from "./service.js";

/** The URL is the credential: it must not leak through a referrer, a cache or a search engine. */
const PRIVATE = {
  "Cache-Control": "private, no-store",
  "Referrer-Policy": "no-referrer",
  "X-Robots-Tag": "noindex",
  "X-Content-Type-Options": "nosniff",
};

const FILE = /^(invoice|receipt)\.(pdf|html)$/;

/**
 * `GET /documents/orders/{id}/{invoice|receipt}.{pdf|html}?expires=&signature=`: an order's
 * invoice or receipt for whoever holds a URL Kassa signed (the merchant through `/v1`, the
 * customer through the portal). `?paper=letter` draws the PDF on US Letter (default A4).
 */
export function registerDocumentRoutes(
  app: Hono<{ Bindings: HttpBindings }>,
  deps: { db: Kysely<KassaDatabase>; clock: Clock; env: InvoicesEnv; logger: Logger },
) {
  const refuse = (c: Context, status: 403 | 404, detail: string) =>
    c.json({ error: status === 403 ? "NotPermitted" : "ResourceNotFound", detail }, status, PRIVATE);

  app.get("/documents/orders/:id/:file", async (c) => {
    const id = c.req.param("id");
    const file = FILE.exec(c.req.param("file"));
    if (!file || !isUuid(id)) return refuse(c, 404, "Not found.");
    const kind = file[1] as DocumentKind;
    const format = file[2] as "pdf" | "html";
    const expires = Number(c.req.query("expires"));
    const signature = c.req.query("signature");
    if (
      !signature ||
      !Number.isSafeInteger(expires) ||
      !deps.env.signer.verify(kind, id, 0, expires, signature, deps.clock.now())
    )
      return refuse(c, 403, "The URL is invalid or has expired. Ask for a new one.");
    try {
      const order = await findOrderAnyOrganization(deps.db, id);
      if (!order) return refuse(c, 404, "Order not found.");
      const doc = await buildDocument(deps.db, order, kind);
      const name = `${kind}-${order.invoice_number}.${format}`.replace(/[^\w.-]/g, "_");
      if (format === "html") {
        const pdfUrl = `${deps.env.baseURL}/documents/orders/${id}/${kind}.pdf?expires=${expires}&signature=${encodeURIComponent(signature)}`;
        return c.html(renderHtml(doc, { pdfUrl }), 200, {
          ...PRIVATE,
          "Content-Security-Policy":
            "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'",
          "Content-Disposition": `inline; filename="${name}"`,
        });
      }
      const paper: Paper = c.req.query("paper")?.toLowerCase() === "letter" ? "LETTER" : "A4";
      const bytes = await renderPdf(doc, paper);
      return c.body(new Uint8Array(bytes), 200, {
        ...PRIVATE,
        "Content-Type": "application/pdf",
        "Content-Length": String(bytes.length),
        "Content-Disposition": `inline; filename="${name}"`,
      });
    } catch (error) {
      deps.logger.error("document rendering failed", { path: c.req.path, error });
      return c.json({ error: "InternalServerError", detail: "Something went wrong on our side." }, 500);
    }
  });
}
