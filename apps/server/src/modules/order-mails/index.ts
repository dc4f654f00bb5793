/** The buyer's mails about an order (the confirmation of a checkout's order). Owns no table. */
export { CONFIRMATION_JOB, type OrderMailDeps, orderMailJobs, orderMailsSink } from "./confirmation.js";
