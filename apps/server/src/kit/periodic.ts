import type { Logger } from "./logger.js";

/**
 * Runs `task` now and then every `intervalMs`, one run at a time (a tick that finds a run in
 * progress is skipped); a failure is logged as `failure` and the next tick runs again.
 */
export function runPeriodically(
  task: () => Promise<unknown>,
  intervalMs: number,
  logger: Logger,
  failure: string,
) {
  let running: Promise<void> | undefined;
  const run = () => {
    running ??= task()
      .then(
        () => {},
        (error: unknown) => logger.error(failure, { error }),
      )
      .finally(() => {
        running = undefined;
      });
  };
  run();
  const timer = setInterval(run, intervalMs);
  timer.unref();
  return {
    /** Stops the timer and waits for a run in progress. */
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
