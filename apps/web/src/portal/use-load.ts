import { useCallback, useEffect, useRef, useState } from "react";
import { V1Error } from "./api";

export type Loaded<T> =
  | { state: "loading"; reload: () => void }
  | { state: "error"; message: string; reload: () => void }
  | { state: "ready"; data: T; reload: () => void };

/**
 * Loads what a section shows, again on `reload()`. A 401 means the session ended (it lasts an
 * hour): `onExpired` sends the customer back to the sign-in.
 */
export function useLoad<T>(load: () => Promise<T>, onExpired: () => void, deps: unknown[]): Loaded<T> {
  const [result, setResult] = useState<
    { state: "loading" } | { state: "error"; message: string } | { state: "ready"; data: T }
  >({ state: "loading" });
  const [round, setRound] = useState(0);
  const expired = useRef(onExpired);
  expired.current = onExpired;
  // biome-ignore lint/correctness/useExhaustiveDependencies: the caller names what the load depends on.
  useEffect(() => {
    let live = true;
    load().then(
      (data) => {
        if (live) setResult({ state: "ready", data });
      },
      (error: unknown) => {
        if (!live) return;
        if (error instanceof V1Error && error.status === 401) expired.current();
        else
          setResult({ state: "error", message: error instanceof Error ? error.message : "Could not load." });
      },
    );
    return () => {
      live = false;
    };
  }, [...deps, round]);
  const reload = useCallback(() => setRound((r) => r + 1), []);
  return { ...result, reload };
}
