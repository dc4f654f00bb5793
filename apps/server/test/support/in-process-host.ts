/**
 * The server side of an in-process test server (in-process.ts): what the harness takes from the
 * server, in one module. The global setup bundles it with the test host (build-host.ts), so a
 * test worker loads the server as one file with plain Node instead of several hundred modules
 * through vitest's transform; Better Auth's `isTest` comes from the same bundle, so the check
 * the harness makes is on the copy of Better Auth the server runs.
 */
export { isTest } from "@better-auth/core/env";
export { loadConfig } from "../../src/config.js";
export { createKassa, type Kassa } from "../../src/server.js";
export { asJson, hostError, hostOps, testPasswordHasher } from "./host-ops.js";
