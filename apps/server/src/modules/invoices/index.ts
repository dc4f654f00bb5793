/** Invoices and receipts of orders: the only file other modules import. */
export type { DocumentKind } from "./document.js";
export { registerDocumentRoutes } from "./public.js";
export { registerInvoiceRoutes } from "./routes.js";
export {
  DOCUMENT_URL_TTL_SECONDS,
  documentUrl,
  generateInvoice,
  getInvoice,
  type InvoicesEnv,
} from "./service.js";
