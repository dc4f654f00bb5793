/**
 * Resolves with `check()`'s first truthy value, asking every `everyMs`; throws after
 * `timeoutMs`. For what a job worker or a receiver does a little after a request answers.
 */
export async function until<T>(
  check: () => Promise<T | false | undefined>,
  timeoutMs = 20_000,
  everyMs = 50,
): Promise<T> {
  const started = Date.now();
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() - started > timeoutMs) throw new Error("condition not met in time");
    await new Promise((r) => setTimeout(r, everyMs));
  }
}
