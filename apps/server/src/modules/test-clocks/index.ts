/** The sandbox's test clocks: an organization's time, moved forward on request. */
export { registerTestClockRoutes } from "./routes.js";
export {
  addDuration,
  advanceTestClock,
  runAdvance,
  TestClockAdvancing,
  type TestClockDeps,
  testClockJobs,
} from "./service.js";
export { createTestClocks, type TestClocks } from "./store.js";
