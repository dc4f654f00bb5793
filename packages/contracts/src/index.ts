export * from "./account-forms.js";
export * from "./auth-forms.js";
export * from "./public-config.js";
export * from "./redirect-errors.js";
export * from "./scopes.js";
export * from "./webhook-events.js";
